import Foundation
import KeelFiles
import Networking
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The secret that keeps an embedded Sandbox to the user who started it (Documentation/Decisions/0007): 32 random
/// bytes, kept in `<data-dir>/sandbox/access-key` (0600 in a 0700 directory), sent by the CLI in `Sandbox-Key` with
/// every request to that Sandbox and with no other.
enum SandboxKey {
  /// The header the key travels in.
  static let header = "Sandbox-Key"

  /// The key kept in `directory`, made and kept there first if there is none (or the file holds something else).
  static func load(in directory: URL) throws -> String {
    let file = directory.appendingPathComponent("access-key")
    do {
      try OwnerOnlyFiles.makeDirectory(directory)
      if FileManager.default.fileExists(atPath: file.path) {
        try OwnerOnlyFiles.prepareFile(file)
        if let kept = try? String(contentsOf: file, encoding: .utf8), isWellFormed(kept) { return kept }
      }
      let key = SandboxConfiguration.randomKey()
      try OwnerOnlyFiles.write(Data(key.utf8), to: file)
      return key
    } catch {
      throw CommandFailure(
        .localStorage, "Cannot keep the embedded Sandbox's key in \(directory.path): \(error). Check --data-dir.")
    }
  }

  private static func isWellFormed(_ key: String) -> Bool {
    key.utf8.count == 64
      && key.utf8.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
      }
  }
}

/// A transport that adds a Sandbox's key to every request for that Sandbox's origin (scheme, host and port), and to
/// no other: an image URL that points elsewhere never carries it.
struct SandboxKeyTransport: HTTPTransport {
  let base: any HTTPTransport
  let origin: URL
  let key: String

  func send(_ request: URLRequest) async throws -> RawResponse {
    try await base.send(keyed(request))
  }

  /// The base's file transfers, with the key added as to requests.
  var fileTransfers: (any FileTransferTransport)? {
    guard let files = base.fileTransfers else { return nil }
    return SandboxKeyFileTransfers(base: files, keyed: { [self] in keyed($0) })
  }

  /// `request` with the key when it goes to the Sandbox's origin.
  func keyed(_ request: URLRequest) -> URLRequest {
    guard let url = request.url, Self.sameOrigin(url, origin) else { return request }
    var keyed = request
    keyed.setValue(key, forHTTPHeaderField: SandboxKey.header)
    return keyed
  }

  static func sameOrigin(_ url: URL, _ origin: URL) -> Bool {
    url.scheme?.lowercased() == origin.scheme?.lowercased() && url.host?.lowercased() == origin.host?.lowercased()
      && (url.port ?? defaultPort(url)) == (origin.port ?? defaultPort(origin))
  }

  private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "https" ? 443 : 80 }
}

/// File transfers with a Sandbox's key added to those for its origin (``SandboxKeyTransport/fileTransfers``).
struct SandboxKeyFileTransfers: FileTransferTransport {
  let base: any FileTransferTransport
  let keyed: @Sendable (URLRequest) -> URLRequest

  func send(_ request: URLRequest) async throws -> RawResponse { try await base.send(keyed(request)) }

  func download(_ request: URLRequest, to destination: URL) -> TransferEvents {
    base.download(keyed(request), to: destination)
  }

  func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents {
    base.upload(keyed(request), fromFile: source)
  }
}

/// A WebSocket transport that adds a Sandbox's key to the upgrade of every connection to that Sandbox's origin (`ws`
/// standing for `http`), and to no other.
struct SandboxKeyWebSocketTransport: WebSocketTransport {
  let base: any WebSocketTransport
  let origin: URL
  let key: String

  func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    components?.scheme = url.scheme?.lowercased() == "wss" ? "https" : "http"
    guard let http = components?.url, SandboxKeyTransport.sameOrigin(http, origin) else {
      return try await base.connect(to: url, headers: headers)
    }
    var keyed = headers
    keyed[SandboxKey.header] = key
    return try await base.connect(to: url, headers: keyed)
  }
}
