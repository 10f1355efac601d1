import Foundation
import Logging
import NIOTransports
import Networking
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Downloads to and uploads from files with progress, on both transports, against a Sandbox on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct FileTransferTests {
  /// The transports under test.
  enum Kind: String, CaseIterable, CustomTestStringConvertible {
    case urlSession, nio
    var testDescription: String { rawValue }
    func make() -> any FileTransferTransport {
      switch self {
      case .urlSession: URLSessionTransport()
      case .nio: NIOHTTPTransport()
      }
    }
  }

  @Test(arguments: Kind.allCases) func downloadsToAFileWithProgress(_ kind: Kind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = kind.make()
    let directory = try TemporaryDirectory()
    let destination = directory.url.appending(path: "image.png")
    let url = URL(string: "\(sandbox.baseURL)/images/download.png?size=1024")!
    var progress: [TransferProgress] = []
    var completed: RawResponse?
    for try await event in transport.download(URLRequest(url: url), to: destination) {
      switch event {
      case .progress(let step): progress.append(step)
      case .completed(let response): completed = response
      }
    }
    let expected = try await transport.send(URLRequest(url: url)).body
    #expect(completed?.status == 200)
    #expect(completed?.body.isEmpty == true)
    #expect(try Data(contentsOf: destination) == expected)
    #expect(progress.last?.completedBytes == Int64(expected.count))
    #expect(progress.map(\.completedBytes) == progress.map(\.completedBytes).sorted())
    let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["image.png"])

    // An error status leaves the destination as it was and carries the error body.
    let missing = URL(string: "\(sandbox.baseURL)/images/no-such.gif")!
    let answer = try await transport.download(URLRequest(url: missing), to: destination).response()
    #expect(answer.status == 404)
    #expect(answer.body.isEmpty == false)
    #expect(try Data(contentsOf: destination) == expected)
    try await (transport as? NIOHTTPTransport)?.shutdown()
    await sandbox.stop()
  }

  @Test(arguments: Kind.allCases) func uploadsAFileWithProgress(_ kind: Kind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = kind.make()
    let directory = try TemporaryDirectory()
    let file = directory.url.appending(path: "batch.json")
    let body =
      #"{"sentAt":1,"events":[{"eventId":"6D0F3C36-3F7A-4A39-8D9B-5B1B7C0A0001","name":"a","timestamp":1,"properties":{}}]}"#
    try Data((body + String(repeating: " ", count: 200_000)).utf8).write(to: file)
    var request = URLRequest(url: sandbox.baseURL.appending(path: "v1/events/batch"))
    request.httpMethod = "POST"
    request.setValue("T", forHTTPHeaderField: "Api-Token")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    var progress: [TransferProgress] = []
    var completed: RawResponse?
    for try await event in transport.upload(request, fromFile: file) {
      switch event {
      case .progress(let step): progress.append(step)
      case .completed(let response): completed = response
      }
    }
    #expect(completed?.status == 200)
    let answer = String(decoding: completed?.body ?? Data(), as: UTF8.self)
    #expect(answer.contains("\"accepted\":1"))
    #expect(progress.last?.fractionCompleted == 1)
    try await (transport as? NIOHTTPTransport)?.shutdown()
    await sandbox.stop()
  }

  @Test(arguments: Kind.allCases) func aMissingFileIsReportedBeforeAnythingIsSent(_ kind: Kind) async throws {
    let transport = kind.make()
    let directory = try TemporaryDirectory()
    var request = URLRequest(url: URL(string: "http://127.0.0.1:9/upload")!)
    request.httpMethod = "POST"
    let error = await #expect(throws: URLError.self) {
      _ = try await transport.upload(request, fromFile: directory.url.appending(path: "missing")).response()
    }
    #expect(error?.code == .fileDoesNotExist)
    let folder = await #expect(throws: URLError.self) {
      _ = try await transport.upload(request, fromFile: directory.url).response()
    }
    #expect(folder?.code == .fileIsDirectory)
    try await (transport as? NIOHTTPTransport)?.shutdown()
  }
}
