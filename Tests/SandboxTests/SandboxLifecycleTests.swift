import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Sandbox lifecycle", .timeLimit(.minutes(3)))
struct SandboxLifecycleTests {
  @Test("Two sandboxes start side by side on ephemeral loopback ports, each with its own data")
  func twoAtOnce() async throws {
    let first = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let second = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    #expect(first.port != second.port)
    #expect(first.baseURL.absoluteString == "http://127.0.0.1:\(first.port)")

    #expect(try await SandboxClient(first).createUser("alice").status == 200)
    #expect(try await SandboxClient(second).send("GET", "/v3/users/alice").errorCode == 400_201)
    await first.stop()
    await second.stop()
  }

  @Test("After stop, the port no longer answers")
  func stop() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let client = SandboxClient(sandbox)
    #expect(try await client.send("GET", "/v3/users").status == 200)
    await sandbox.stop()
    await #expect(throws: (any Error).self) { try await client.send("GET", "/v3/users") }
  }

  @Test("Cancelling start returns promptly and leaves nothing bound")
  func cancelledStart() async throws {
    let probe = TaskProbe { try await Sandbox.start(SandboxConfiguration(logLevel: .critical)) }
    probe.cancel()
    let result = await probe.finished()
    #expect(result != nil, "start returned")
    if case .success(let sandbox)? = result { await sandbox.stop() }
  }

  @Test("An IPv6 host is bracketed in the base URL")
  func ipv6BaseURL() async throws {
    // Skipped where the machine has no IPv6 loopback.
    guard let sandbox = try? await Sandbox.start(SandboxConfiguration(host: "::1", logLevel: .critical)) else { return }
    #expect(sandbox.baseURL.absoluteString == "http://[::1]:\(sandbox.port)")
    await sandbox.stop()
  }

  @Test("A port that is taken is an error from start, not a hang")
  func portTaken() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    await #expect(throws: (any Error).self) {
      _ = try await Sandbox.start(SandboxConfiguration(port: sandbox.port, logLevel: .critical))
    }
    await sandbox.stop()
  }
}
