#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether this machine has an IPv6 loopback (`::1`) a server can bind: a test of IPv6 behaviour runs where it does
/// and reports itself skipped, with the reason, where it does not, rather than passing without checking.
public func ipv6LoopbackAvailable() -> Bool {
  let descriptor = ipv6Socket()
  guard descriptor >= 0 else { return false }
  defer { close(descriptor) }
  return withLoopbackAddress(port: 0) { bind(descriptor, $0, $1) } == 0
}

/// A TCP socket for IPv6, or -1.
private func ipv6Socket() -> Int32 {
  #if canImport(Darwin)
    socket(AF_INET6, SOCK_STREAM, 0)
  #else
    socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
  #endif
}

/// Calls `body` with `[::1]:port` as a socket address and its length.
private func withLoopbackAddress(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
  var address = sockaddr_in6()
  address.sin6_family = sa_family_t(AF_INET6)
  address.sin6_addr = in6addr_loopback
  address.sin6_port = in_port_t(UInt16(port).bigEndian)
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
  }
}

/// The status line of the answer to `GET path` sent to `[::1]:port` over a plain socket, or `nil` when nothing
/// answered within `timeout` seconds: for a server on the IPv6 loopback, which URLSession on Linux cannot address
/// (`http://[::1]:…` is a bad URL to FoundationNetworking).
public func ipv6StatusLine(port: Int, path: String, headers: [String: String] = [:], timeout: Int = 10) -> String? {
  let descriptor = ipv6Socket()
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  var wait = timeval(tv_sec: timeout, tv_usec: 0)
  setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
  guard withLoopbackAddress(port: port, { connect(descriptor, $0, $1) }) == 0 else { return nil }
  let head =
    (["GET \(path) HTTP/1.1", "Host: [::1]:\(port)", "Connection: close"]
    + headers.map { "\($0.key): \($0.value)" }).joined(separator: "\r\n") + "\r\n\r\n"
  let sent = Array(head.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
  guard sent == head.utf8.count else { return nil }
  var received: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 1_024)
  while !received.contains(UInt8(ascii: "\n")) {
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { break }
    received += buffer[..<count]
  }
  let text = String(decoding: received, as: UTF8.self)
  return text.split(separator: "\r\n", maxSplits: 1).first.map(String.init)
}
