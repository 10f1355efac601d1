import Foundation
import Logging
import LoopbackSockets
import Sandbox

#if canImport(Glibc)
  import Glibc
#endif

/// The Sandbox's promises to whatever a client sends: it never crashes, every answer is an HTTP/1.1 response, and
/// no request is a 5xx (a 500 means a handler met input it did not expect). One Sandbox serves every input, with
/// rate limits off so that inputs do not slow each other down, and its control plane behind a key no input knows:
/// an input that injected a fault would make every later 5xx the Sandbox's own choice, not a bug.
enum SandboxFuzzing {
  private static let port: Int = {
    let semaphore = DispatchSemaphore(value: 0)
    let started = StartedPort()
    Task.detached {
      let sandbox = try await Sandbox.start(
        SandboxConfiguration(
          rateLimitsEnabled: false, logLevel: .critical, controlKey: UUID().uuidString))
      started.set(sandbox.port)
      semaphore.signal()
      // Kept running for the whole fuzzing run.
      try await Task.sleep(for: .seconds(365 * 24 * 3_600))
      await sandbox.stop()
    }
    semaphore.wait()
    return started.value
  }()

  static func check(_ request: Data) {
    let answer = exchange(request)
    // The connection was closed (a fine answer to garbage), or the answer took over two seconds to start.
    guard answer.count >= 12 else { return }
    let text = String(decoding: answer.prefix(12), as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else {
      fatalError("not an HTTP/1.1 response: \(String(decoding: answer.prefix(200), as: UTF8.self))")
    }
    if (500...599).contains(status) {
      fatalError("HTTP \(status) for \(String(decoding: request.prefix(300), as: UTF8.self))")
    }
  }

  /// Sends `request` over a new connection, closes the sending side, and reads the first response (or up to the
  /// end, or two seconds).
  private static func exchange(_ request: Data) -> Data {
    let descriptor: Int32
    switch LoopbackSocket.open(port: port, receiveTimeout: 2) {
    case .success(let opened): descriptor = opened
    case .failure(let error): fatalError("the Sandbox stopped accepting connections (errno \(error.code))")
    }
    defer { close(descriptor) }
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    shutdown(descriptor, Int32(SHUT_WR))
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while !isComplete(received) {
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count < 0 && errno == EINTR { continue }  // a signal, not the end
      if count <= 0 { break }
      received.append(buffer, count: count)
    }
    return received
  }

  /// Whether `data` holds a whole response: headers, and as many body bytes as `Content-Length` says.
  private static func isComplete(_ data: Data) -> Bool {
    guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
    let headers = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
    let length =
      headers.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
      .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    return data.count - end.upperBound >= length
  }
}

/// The port the Sandbox got, handed from the task that started it.
private final class StartedPort: @unchecked Sendable {
  // @unchecked: written once before the semaphore is signalled, read only after it is waited for.
  private var port = 0
  func set(_ value: Int) { port = value }
  var value: Int { port }
}
