import AsyncHTTPClient
import Chat
import Domain
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Networking

/// A 25 MiB file up and down, in MiB/s, on the chat rows' Sandbox, against raw AsyncHTTPClient in the same run:
///
/// - `file.upload.MiBps`: from Ann's `send(_:files:to:)` until the outbox has the server's answer: the file copied into
///   the outbox, the multipart body written beside it and streamed from disk through the session's client. The peer
///   reads the file, builds the same multipart body in memory and POSTs it with AsyncHTTPClient's `execute`.
/// - `file.download.MiBps`: Bob's `download(_:to:)` on its default settings, in a new directory each round (nothing
///   kept from an earlier one), until it returns: streamed to the destination through the session's client. Its
///   copy into the account's file cache is made after that, as an app's next work would run beside it, and the
///   round's `shutDown()` waits for it outside the clock. The peer GETs it with AsyncHTTPClient's `execute` and
///   writes each chunk of the body to the destination as it comes.
///
/// Each round opens a new `ChatService` in a new directory, and its account (the store, the outbox) before the clock
/// starts: the rows time a transfer, not the opening of a chat, which an app does once.
///
/// Goal: at least 0.8 × the peer's throughput each way.
enum ChatFileBenchmarks {
  static let size = 25 << 20

  static func comparisons(_ fixture: ChatBenchFixture) -> [Comparison] {
    let files = Files()
    return [
      Comparison(
        name: "domain.chat.file.upload.MiBps", unit: "MiB/s", better: .higher, target: nil, minRatio: 0.8,
        rounds: (2, 5), keel: { try await keelUpload(fixture, files) }, peer: { try await peerUpload(fixture, files) }),
      Comparison(
        name: "domain.chat.file.download.MiBps", unit: "MiB/s", better: .higher, target: nil, minRatio: 0.8,
        rounds: (2, 5), keel: { try await keelDownload(fixture, files) },
        peer: { try await peerDownload(fixture, files) },
        finish: {
          await files.remove()
          await fixture.stop()
        }),
    ]
  }

  /// The file both sides send, the one both download, and the peer's client, made on first use.
  actor Files {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-files-\(UUID())")
    private var source: URL?
    private var uploaded: String?
    private var client: AsyncHTTPClient.HTTPClient?

    /// 25 MiB of varied bytes.
    func file() throws -> URL {
      if let source { return source }
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      var state: UInt64 = 0x2545_F491_4F6C_DD1D
      let bytes = Data(
        (0..<ChatFileBenchmarks.size).map { _ in
          state ^= state << 13
          state ^= state >> 7
          state ^= state << 17
          return UInt8(truncatingIfNeeded: state)
        })
      let url = directory.appendingPathComponent("report.bin")
      try bytes.write(to: url)
      source = url
      return url
    }

    /// The path of the file on the server, sent once by Ann.
    func path(_ running: ChatBenchFixture.Running) async throws -> String {
      if let uploaded { return uploaded }
      let ann = try ChatService(
        baseURL: running.baseURL, sessions: running.ann, socketTransport: running.socket,
        directory: try ChatBenchFixture.scratchDirectory(), clock: ContinuousClock())
      let sent = await ann.outcome(of: try await ann.send("", files: [try file()], to: running.latencyChannel))
      await ann.shutDown()
      guard let path = sent.files.first?.url else { throw BenchmarkError(description: "the file was not sent") }
      uploaded = path
      return path
    }

    func peerClient() -> AsyncHTTPClient.HTTPClient {
      if let client { return client }
      let made = AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton)
      client = made
      return made
    }

    func remove() async {
      try? await client?.shutdown()
      client = nil
      try? FileManager.default.removeItem(at: directory)
    }
  }

  private static func mebibytesPerSecond(since start: ContinuousClock.Instant) -> Double {
    Double(size) / 1_048_576 / (nanoseconds(start.duration(to: .now)) / 1e9)
  }

  private static func keelUpload(_ fixture: ChatBenchFixture, _ files: Files) async throws -> Double {
    let running = try await fixture.start()
    let file = try await files.file()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let ann = try ChatService(
      baseURL: running.baseURL, sessions: running.ann, socketTransport: running.socket, directory: directory,
      clock: ContinuousClock())
    _ = try await ann.search("report", limit: 1)  // opens Ann's account
    let start = ContinuousClock.now
    let sent = await ann.outcome(of: try await ann.send("", files: [file], to: running.latencyChannel))
    let rate = mebibytesPerSecond(since: start)
    await ann.shutDown()
    guard sent.state == .sent else { throw BenchmarkError(description: "keel: \(sent.failureReason ?? "not sent")") }
    return rate
  }

  private static func peerUpload(_ fixture: ChatBenchFixture, _ files: Files) async throws -> Double {
    let running = try await fixture.start()
    let file = try await files.file()
    let client = await files.peerClient()
    let start = ContinuousClock.now
    var form = MultipartFormData()
    form.append(UUID().uuidString, name: "clientMessageId")
    try form.append(fileAt: file, name: "files")
    var request = HTTPClientRequest(
      url: running.baseURL.appendingPathComponent("v1/conversations/\(running.latencyChannel)/messages").absoluteString)
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(running.annToken)")
    request.headers.add(name: "Content-Type", value: form.contentType)
    request.body = .bytes(ByteBuffer(data: try form.encoded(limits: MultipartLimits(maxFileSize: 25 << 20))))
    let response = try await client.execute(request, timeout: .seconds(120))
    _ = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .created else { throw BenchmarkError(description: "peer: \(response.status)") }
    return mebibytesPerSecond(since: start)
  }

  private static func keelDownload(_ fixture: ChatBenchFixture, _ files: Files) async throws -> Double {
    let running = try await fixture.start()
    let path = try await files.path(running)
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let bob = try ChatService(
      baseURL: running.baseURL, sessions: running.bob, socketTransport: running.socket, directory: directory,
      clock: ContinuousClock())
    let destination = directory.appendingPathComponent("report.bin")
    _ = try await bob.search("report", limit: 1)  // opens Bob's account
    let start = ContinuousClock.now
    try await bob.download(path, to: destination)
    let rate = mebibytesPerSecond(since: start)
    await bob.shutDown()
    try check(destination)
    return rate
  }

  private static func peerDownload(_ fixture: ChatBenchFixture, _ files: Files) async throws -> Double {
    let running = try await fixture.start()
    let path = try await files.path(running)
    let client = await files.peerClient()
    let destination = try ChatBenchFixture.scratchDirectory().appendingPathComponent("report.bin")
    defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
    let start = ContinuousClock.now
    var request = HTTPClientRequest(url: URL(string: path, relativeTo: running.baseURL)!.absoluteString)
    request.headers.add(name: "Authorization", value: "Bearer \(running.bobToken)")
    let response = try await client.execute(request, timeout: .seconds(120))
    guard response.status == .ok else { throw BenchmarkError(description: "peer: \(response.status)") }
    _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
    let handle = try FileHandle(forWritingTo: destination)
    for try await chunk in response.body { try handle.write(contentsOf: Data(buffer: chunk)) }
    try handle.close()
    let rate = mebibytesPerSecond(since: start)
    try check(destination)
    return rate
  }

  private static func check(_ file: URL) throws {
    let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
    guard size == Self.size else { throw BenchmarkError(description: "downloaded \(size ?? 0) bytes") }
  }
}
