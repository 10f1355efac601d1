import Foundation
import LoopbackSockets

#if canImport(Glibc)
  import Glibc
#endif

/// Raw HTTP over a plain socket to a server on 127.0.0.1, for requests no HTTP client sends as they are (a head
/// without its body, an upgrade declined).
public enum LoopbackExchange {
  /// Sends `request` over a plain socket to 127.0.0.1:`port`, keeps the sending side open, and reads until the server
  /// closes or `wait` seconds pass without a byte; what came back, and whether the server closed.
  public static func keepingOpen(port: Int, _ request: String, wait: Int) async throws -> (String, closed: Bool) {
    try await exchange(port: port, request, closingSend: false, wait: wait)
  }

  /// Sends `request` over a plain socket to 127.0.0.1:`port`, closes the sending side, and returns what came back
  /// before the server closed.
  public static func closingSend(port: Int, _ request: String) async throws -> String {
    try await exchange(port: port, request, closingSend: true, wait: nil).0
  }

  /// Sends `request` over a plain socket to 127.0.0.1:`port` and reads until what came back satisfies `enough` (a
  /// stream that never ends, such as server-sent events), the server closes, or `wait` seconds pass without a byte.
  public static func reading(
    port: Int, _ request: String, wait: Int, until enough: @escaping @Sendable (String) -> Bool
  ) async throws -> String {
    try await exchange(port: port, request, closingSend: false, wait: wait, until: enough).0
  }

  /// One exchange, on a thread of its own: the socket's calls block.
  private static func exchange(
    port: Int, _ request: String, closingSend: Bool, wait: Int?,
    until enough: (@Sendable (String) -> Bool)? = nil
  ) async throws -> (String, closed: Bool) {
    try await onOwnThread {
      guard case .success(let descriptor) = LoopbackSocket.open(port: port, receiveTimeout: wait) else {
        throw POSIXError(.ECONNREFUSED)
      }
      defer { close(descriptor) }
      if !request.isEmpty { _ = request.withCString { send(descriptor, $0, strlen($0), 0) } }
      if closingSend { shutdown(descriptor, Int32(SHUT_WR)) }
      var received = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 4_096)
      var closed = false
      while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count == 0 || (count < 0 && errno == ECONNRESET) { closed = true }
        if count <= 0 { break }
        received += buffer[0..<count]
        if let enough, enough(String(decoding: received, as: UTF8.self)) { break }
      }
      return (String(decoding: received, as: UTF8.self), closed)
    }
  }
}
