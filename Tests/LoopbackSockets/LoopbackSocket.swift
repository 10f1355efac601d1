#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A plain TCP connection to 127.0.0.1, for what must speak raw bytes to a local server: the fuzz harness, a test of
/// a malformed request, a load generator.
package enum LoopbackSocket {
  /// A connected socket to 127.0.0.1:`port`, or the `errno` of the call that failed. With `receiveTimeout`, a read
  /// that waits longer returns what it has.
  package static func open(port: Int, receiveTimeout seconds: Int? = nil) -> Result<Int32, LoopbackSocketError> {
    // A signal (libFuzzer's timer, a profiler's) can interrupt a blocking connect: that attempt is abandoned and a
    // new socket tried, a few times, rather than reported as a refusal.
    for _ in 0..<5 {
      switch attempt(port: port, receiveTimeout: seconds) {
      case .failure(let error) where error.code == EINTR: continue
      case let outcome: return outcome
      }
    }
    return attempt(port: port, receiveTimeout: seconds)
  }

  private static func attempt(port: Int, receiveTimeout seconds: Int?) -> Result<Int32, LoopbackSocketError> {
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { return .failure(LoopbackSocketError(code: errno)) }
    if let seconds {
      var timeout = timeval(tv_sec: seconds, tv_usec: 0)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let code = errno
      close(descriptor)
      return .failure(LoopbackSocketError(code: code))
    }
    return .success(descriptor)
  }
}

/// A socket call that failed, with its `errno`.
package struct LoopbackSocketError: Error, Sendable {
  /// The `errno` of the failed call.
  package let code: Int32
}
