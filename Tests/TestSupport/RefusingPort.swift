#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A port on 127.0.0.1 that refuses every connection for as long as this value lives: a socket bound to it and never
/// listened on. No server can take the port meanwhile, which one can take a port that a stopped server has just
/// freed: with every suite at once, another test's Sandbox did, and a client meant to find nothing was answered.
public final class RefusingPort: Sendable {
  /// The port's number.
  public let number: Int
  private let descriptor: Int32

  /// Binds a socket to a free port on 127.0.0.1, without listening; fails with the `errno` of the call that failed.
  public init() throws(RefusingPortError) {
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw RefusingPortError(code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else {
      let code = errno
      close(descriptor)
      throw RefusingPortError(code: code)
    }
    self.descriptor = descriptor
    self.number = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }
}

/// A socket call that failed while reserving a refusing port, with its `errno`.
public struct RefusingPortError: Error, Sendable {
  /// The `errno` of the failed call.
  public let code: Int32
}
