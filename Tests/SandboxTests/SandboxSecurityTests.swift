import Clocks
import Dispatch
import Foundation
import Logging
import TestSupport
import Testing

@testable import Sandbox

/// The Sandbox's keys, its state file, a truncated body, and one route unable to starve the others.
@Suite("Sandbox security and robustness", .timeLimit(.minutes(3)))
struct SandboxSecurityTests {
  @Test("With an access key, every route answers 401 without it, counts nothing and changes nothing")
  func accessKey() async throws {
    let configuration = SandboxConfiguration(logLevel: .warning, accessKey: "k3y")
    try await withSandbox(configuration) { client in
      for (method, path) in [
        ("GET", "/v3/users"), ("POST", "/v3/users"), ("POST", "/v1/auth/login"), ("GET", "/images/a.png"),
        ("POST", "/_sandbox/reset"), ("GET", "/_sandbox/stats"), ("GET", "/nowhere"),
      ] {
        let refused = try await client.send(method, path, headers: ["Sandbox-Key": "wrong"])
        #expect(refused.status == 401, "\(method) \(path)")
        #expect(refused.json["errorCode"] as? String == "E401")
        #expect(try await client.send(method, path).status == 401, "\(method) \(path) without a key")
      }
      let keyed = ["Sandbox-Key": "k3y"]
      let created = try await client.send(
        "POST", "/v3/users", json: ["user_id": "a", "nickname": "A", "profile_url": ""], headers: keyed)
      #expect(created.status == 200)
      // The control plane wants the key too: RunningSandbox.control presents it.
      let stats = try await client.sandbox.control.statistics()
      #expect(stats.requests("POST /v3/users") == 1, "only the keyed request counted")
      await #expect(throws: SandboxError.self) { try await SandboxControl(baseURL: client.sandbox.baseURL).reset() }
    }
  }

  @Test("A control key guards the control plane alone; the APIs stay open")
  func controlKey() async throws {
    try await withSandbox(SandboxConfiguration(logLevel: .warning, controlKey: "c0ntrol")) { client in
      #expect(try await client.createUser("a", nickname: "A").status == 200)
      #expect(try await client.send("POST", "/_sandbox/reset").status == 401)
      #expect(try await client.send("GET", "/v3/users/a").status == 200, "the refused reset changed nothing")
      try await SandboxControl(baseURL: client.sandbox.baseURL, key: "c0ntrol").reset()
      #expect(try await client.send("GET", "/v3/users/a").status == 400, "the keyed reset did")
    }
  }

  @Test("The state file is 0600 in a 0700 directory, holds no token, and stays small over 20 sign-ins and outs")
  func stateFile() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-state-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = TestClock()
    let configuration = SandboxConfiguration(
      accessTokenTTL: .seconds(60), clock: clock, logLevel: .warning, stateDirectory: directory)
    try await withSandbox(configuration) { client in
      #expect(try await client.createUser("alice", nickname: "Alice").status == 200)
      var tokens: [String] = ["token-a"]
      for _ in 1...20 {
        let login = try await client.send(
          "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
        let access = try #require(login.json["accessToken"] as? String)
        tokens += [access, try #require(login.json["refreshToken"] as? String)]
        let out = try await client.send("POST", "/v1/auth/logout", headers: ["Authorization": "Bearer \(access)"])
        #expect(out.status == 200)
      }
      let file = directory.appendingPathComponent("sandbox-state.json")
      let text = try String(contentsOf: file, encoding: .utf8)
      for token in tokens { #expect(!text.contains(token), "a token in the clear") }
      #expect(Self.mode(of: file.path) == 0o600)
      #expect(Self.mode(of: directory.path) == 0o700)

      // Once the ended sessions' tokens are past their lifetime, the next sign-in prunes them.
      await clock.advance(by: .seconds(121))
      _ = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
      let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
      let auth = try #require(kept?["auth"] as? [String: Any])
      #expect((auth["sessions"] as? [String: Any])?.count == 1)
      #expect((auth["refreshGrants"] as? [String: Any])?.count == 1)
    }
  }

  @Test("A body shorter than its Content-Length is 400 (malformed), not 413")
  func truncatedBody() async throws {
    try await withSandbox(SandboxConfiguration(logLevel: .critical)) { client in
      let answer = try await Self.raw(
        port: client.sandbox.port,
        "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 100\r\n\r\n{\"email\":")
      #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
      #expect(answer.contains("E01"), "\(answer)")
    }
  }

  @Test("A header value with a control character is answered 400 and closed at once, the connection left open")
  func controlCharacterInHeader() async throws {
    try await withSandbox(SandboxConfiguration(logLevel: .critical)) { client in
      for request in [
        "GET /v3/users HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trace: a\u{01}b\r\n\r\n",
        "GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: web\u{7F}socket\r\n\r\n",
      ] {
        let (answer, closed) = try await LoopbackExchange.keepingOpen(port: client.sandbox.port, request, wait: 30)
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        #expect(closed, "the server closed the connection, not the client's wait: \(answer)")
      }
      // The server still answers everyone else.
      let (fine, _) = try await LoopbackExchange.keepingOpen(
        port: client.sandbox.port, "GET /_sandbox/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        wait: 30)
      #expect(fine.hasPrefix("HTTP/1.1 200"), "\(fine)")
    }
  }

  @Test("A connection that never sends a whole first request is closed by the idle limit, whatever it sent")
  func idleBeforeFirstRequest() async throws {
    var configuration = SandboxConfiguration(logLevel: .critical)
    configuration.idleTimeout = .seconds(1)
    try await withSandbox(configuration) { client in
      for partial in ["", "GET /v3/users HTTP/1.1\r\nHost: 127.0", "GET /socket.io/?EIO=4 HTTP/1.1\r\n"] {
        // The client waits up to 20 s for a byte: a server that kept the connection open would leave it unclosed.
        let (answer, closed) = try await LoopbackExchange.keepingOpen(port: client.sandbox.port, partial, wait: 20)
        #expect(closed, "closed within the wait: \(partial.debugDescription) got \(answer.debugDescription)")
        #expect(answer.isEmpty, "closed without an answer: \(answer.debugDescription)")
      }
    }
  }

  @Test("A chat route answers a request without a live access token at once, before reading the 41 MiB it announced")
  func bearerBeforeBody() async throws {
    // An idle limit of 20 s: a server that waited for the body would close the connection then, unanswered; one that
    // answers from the headers does so as soon as its handler runs, which on a loaded machine took more than 2 s.
    var configuration = SandboxConfiguration(logLevel: .critical)
    configuration.idleTimeout = .seconds(20)
    try await withSandbox(configuration) { client in
      // Headers only: the announced body never comes, so an answer means the server did not wait for it.
      let (answer, _) = try await LoopbackExchange.keepingOpen(
        port: client.sandbox.port,
        "POST /v1/conversations/c1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer guessed\r\n"
          + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 43000000\r\n\r\n", wait: 30)
      #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")
      #expect(answer.contains("E02"), "\(answer)")
    }
  }

  @Test("Images are drawn one at a time on the renderer's own thread: a draw in progress holds up no caller's thread")
  func drawsAreSerializedOffThePool() async throws {
    let renderer = ImageRenderer(stats: RecordedStatistics())
    let release = DispatchSemaphore(value: 0)
    let started = Recorder<String>()
    // A first draw that holds the renderer's thread until released, and a second queued behind it.
    let first = Task {
      await renderer.image(forKey: "a") {
        started.record("a")
        release.wait()
        return [1]
      }
    }
    // Two minutes for the first draw's task to start: with every suite at once on two cores, 30 s has run out.
    #expect(await poll(for: .seconds(120)) { started.count == 1 })
    let second = Task {
      await renderer.image(forKey: "b") {
        started.record("b")
        return [2]
      }
    }
    // Meanwhile the cooperative threads are free: many tasks run to completion while the draw is held.
    let unrelated = await withTaskGroup(of: Int.self) { group in
      for value in 0..<100 { group.addTask { value } }
      return await group.reduce(0, +)
    }
    #expect(unrelated == 4_950)
    #expect(started.elements == ["a"], "the second draw waits for the first")
    release.signal()
    #expect(await first.value == [1])
    #expect(await second.value == [2])
    #expect(started.elements == ["a", "b"])
  }

  @Test("An image is drawn once for any number of requests of the same id and size")
  func imagesDrawnOnce() async throws {
    try await withSandbox(SandboxConfiguration(logLevel: .warning)) { client in
      await withTaskGroup(of: Int.self) { group in
        for _ in 0..<8 { group.addTask { (try? await client.send("GET", "/images/same.png?size=256").status) ?? 0 } }
        for await status in group { #expect(status == 200) }
      }
      let stats = try await client.sandbox.control.statistics()
      #expect(stats.counter("imageHits") == 8)
      #expect(stats.counter("imageRenders") == 1)
    }
  }

  /// The permission bits of `path`.
  static func mode(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? 0
  }

  /// Sends `request` over a plain socket to 127.0.0.1:`port`, closes the sending side, and returns what came back.
  static func raw(port: Int, _ request: String) async throws -> String {
    try await LoopbackExchange.closingSend(port: port, request)
  }
}
