import Foundation
import KeelBasics
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
    guard let url = request.url, Self.sameOrigin(url, origin) else { return try await base.send(request) }
    var keyed = request
    keyed.setValue(key, forHTTPHeaderField: SandboxKey.header)
    return try await base.send(keyed)
  }

  static func sameOrigin(_ url: URL, _ origin: URL) -> Bool {
    url.scheme?.lowercased() == origin.scheme?.lowercased() && url.host?.lowercased() == origin.host?.lowercased()
      && (url.port ?? defaultPort(url)) == (origin.port ?? defaultPort(origin))
  }

  private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "https" ? 443 : 80 }
}
