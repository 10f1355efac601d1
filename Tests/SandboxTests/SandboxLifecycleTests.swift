import Foundation
import Logging
import LoopbackSockets
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
    // A port that was free a moment ago, so that whether anything is left bound can be asked of it.
    let holder = try await Sandbox.start(SandboxConfiguration(logLevel: .critical))
    let port = holder.port
    await holder.stop()

    let probe = TaskProbe { try await Sandbox.start(SandboxConfiguration(port: port, logLevel: .critical)) }
    probe.cancel()
    let result = try #require(await probe.finished(), "start returned")
    switch result {
    case .success(let late):
      // The cancellation came after the server was up: start's answer is a running Sandbox, stopped here.
      await late.stop()
    case .failure(let error):
      #expect(error is CancellationError, "\(error)")
    }
    // A server task left behind would bind a moment after start returned: watched for a while, not once.
    func answers() -> Bool {
      guard case .success(let descriptor) = LoopbackSocket.open(port: port) else { return false }
      close(descriptor)
      return true
    }
    #expect(!(await poll(for: .milliseconds(500)) { answers() }), "nothing listens on \(port) after start returned")
    let again = try await Sandbox.start(SandboxConfiguration(port: port, logLevel: .critical))
    await again.stop()
  }

  @Test("An IPv6 host is bracketed in the base URL, and the server answers there")
  func ipv6BaseURL() async throws {
    guard ipv6LoopbackAvailable() else { try Test.cancel("This machine has no IPv6 loopback (::1) to bind.") }
    let sandbox = try await Sandbox.start(SandboxConfiguration(host: "::1", logLevel: .critical))
    #expect(sandbox.baseURL.absoluteString == "http://[::1]:\(sandbox.port)")
    // Over a plain socket: URLSession on Linux cannot address an IPv6 literal.
    let port = sandbox.port
    // A thread of its own for the blocking socket, not one of the few that run every test's tasks.
    let answer = await withCheckedContinuation { continuation in
      Thread {
        continuation.resume(
          returning: ipv6StatusLine(port: port, path: "/v3/users", headers: ["Api-Token": "token-a"], timeout: 60))
      }.start()
    }
    #expect(answer == "HTTP/1.1 200 OK", "\(answer ?? "no answer")")
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
