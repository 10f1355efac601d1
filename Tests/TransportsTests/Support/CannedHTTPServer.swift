import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A listener on 127.0.0.1 that answers every connection's first request with raw bytes and closes it: for answers the
/// Sandbox never gives (a chunked body with no length, a HEAD answer announcing one), or a peer that goes quiet.
final class CannedHTTPServer: Sendable {
  /// The port it listens on, chosen by the system.
  let port: Int
  private let listener: Int32

  /// Starts listening; `answer` is written whole after the request's head has arrived.
  convenience init(answer: String) throws {
    try self.init(holdingOpen: false) { _ in answer }
  }

  /// Starts listening; what `answer` makes of the request's head is written whole once it has arrived. With
  /// `holdingOpen`, the connection then stays open, everything the client sends read and ignored, until the client
  /// closes it.
  init(holdingOpen: Bool, answer: @escaping @Sendable (String) -> String) throws {
    #if canImport(Darwin)
      let listener = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
      }
    }
    guard listener >= 0, bound else {
      let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      if listener >= 0 { close(listener) }
      throw failure
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread {
      // The listener is closed here, once `accept` fails, never by `stop()`: its number could otherwise be given to
      // another test's socket while this loop is about to accept again.
      defer { close(listener) }
      while true {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }  // shut down by `stop()`
        var head = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
          let count = read(connection, &chunk, chunk.count)
          guard count > 0 else { break }
          head += chunk[0..<count]
        }
        let bytes = Array(answer(String(decoding: head, as: UTF8.self)).utf8)
        _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        while holdingOpen, read(connection, &chunk, chunk.count) > 0 {}
        close(connection)
      }
    }
  }

  /// Stops accepting connections: the waiting `accept` fails, and its thread closes the listener.
  func stop() {
    shutdown(listener, Int32(SHUT_RDWR))
  }
}
