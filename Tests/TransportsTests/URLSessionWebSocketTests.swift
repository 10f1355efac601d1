import Foundation
import Logging
import Networking
import Sandbox
import TestSupport
import Testing

/// `URLSessionWebSocketTransport` against the Sandbox's echo: on Linux it must say at once that it cannot work
/// (libcurl without WebSocket), not hang; on Apple platforms it echoes.
@Suite(.timeLimit(.minutes(10))) struct URLSessionWebSocketTests {
  @Test func connectsOrSaysItCannot() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let url = URL(string: "ws://127.0.0.1:\(sandbox.port)/ws/echo")!
    #if canImport(FoundationNetworking)
      let error = await #expect(throws: WebSocketError.self) {
        _ = try await URLSessionWebSocketTransport().connect(to: url, headers: [:])
      }
      #expect(error?.kind == .unsupported)
    #else
      let connection = try await URLSessionWebSocketTransport().connect(to: url, headers: [:])
      try await connection.send(.text("hello"))
      var inbound = connection.messages.makeAsyncIterator()
      #expect(try await inbound.next() == .text("hello"))
      await connection.close(.normalClosure, reason: "done")
      #expect(await connection.closure().code == .normalClosure)
    #endif
    await sandbox.stop()
  }

  @Test func aURLThatIsNotAWebSocketIsRefusedBeforeAnythingIsSent() async throws {
    let error = await #expect(throws: WebSocketError.self) {
      _ = try await URLSessionWebSocketTransport().connect(to: URL(string: "file:///tmp/x")!, headers: [:])
    }
    #expect(error?.kind == .invalidURL)
  }
}
