import Foundation
import LoopbackSockets

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A load generator that costs the machine as little as possible: `connections` keep-alive HTTP/1.1 connections on
/// 127.0.0.1, each on its own thread with blocking sockets, sending the same GET back to back for `duration`.
enum LoopbackLoad {
  /// Completed requests per second; throws if any response is not a 200.
  static func requestsPerSecond(
    port: Int, path: String, headers: [String: String], connections: Int, duration: Duration
  ) async throws -> Double {
    let head =
      (["GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers.map { "\($0.key): \($0.value)" })
      .joined(separator: "\r\n") + "\r\n\r\n"
    let request = Array(head.utf8)
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    let results = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<connections {
        group.addTask { try await onThread { try run(port: port, request: request, seconds: seconds) } }
      }
      return try await group.reduce(0, +)
    }
    return Double(results) / seconds
  }

  /// Sends one raw request on a fresh connection and reads its (200) response.
  static func sendOnce(port: Int, raw: String) async throws {
    _ = try await onThread {
      let socket = try openConnection(port: port)
      defer { close(socket) }
      let bytes = Array(raw.utf8)
      guard send(socket, bytes, bytes.count, 0) == bytes.count else {
        throw BenchmarkError(description: "send failed: \(errno)")
      }
      var buffer: [UInt8] = []
      try readResponse(socket, &buffer)
      return 1
    }
  }

  /// Runs `body` on a new OS thread, so that blocking I/O never stalls the cooperative pool.
  private static func onThread(_ body: @escaping @Sendable () throws -> Int) async throws -> Int {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread { continuation.resume(with: Result { try body() }) }
      thread.start()
    }
  }

  private static func run(port: Int, request: [UInt8], seconds: Double) throws -> Int {
    let socket = try openConnection(port: port)
    defer { close(socket) }
    var buffer: [UInt8] = []
    var completed = 0
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      try request.withUnsafeBytes { bytes in
        var sent = 0
        while sent < bytes.count {
          let written = send(socket, bytes.baseAddress! + sent, bytes.count - sent, 0)
          guard written > 0 else { throw BenchmarkError(description: "send failed: \(errno)") }
          sent += written
        }
      }
      try readResponse(socket, &buffer)
      completed += 1
    }
    return completed
  }

  /// Reads one response (headers, then `Content-Length` bytes), leaving any bytes after it in `buffer`.
  private static func readResponse(_ socket: Int32, _ buffer: inout [UInt8]) throws {
    let separator: [UInt8] = [13, 10, 13, 10]
    var headerEnd: Int?
    var bodyLength = 0
    while true {
      if headerEnd == nil, let end = buffer.firstRange(of: separator)?.upperBound {
        headerEnd = end
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 200") else { throw BenchmarkError(description: "not a 200: \(head.prefix(40))") }
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        bodyLength = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
      }
      if let headerEnd, buffer.count >= headerEnd + bodyLength {
        buffer.removeFirst(headerEnd + bodyLength)
        return
      }
      var chunk = [UInt8](repeating: 0, count: 16_384)
      let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { throw BenchmarkError(description: "connection closed: \(errno)") }
      buffer += chunk[..<count]
    }
  }

  private static func openConnection(port: Int) throws -> Int32 {
    switch LoopbackSocket.open(port: port) {
    case .success(let descriptor):
      var noDelay: Int32 = 1
      setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
      return descriptor
    case .failure(let error):
      throw BenchmarkError(description: "connect failed: \(error.code)")
    }
  }
}
