import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Sandbox

/// The console's server side, over raw HTTP so that every header is the test's own (`Host`, `Origin`, `Cookie`):
/// who may open it and drive it, what its cookie holds, the journal's detail with secrets masked, one fault removed
/// by its number, and the live stream. The page itself is tested in a browser (Tests/Browser).
@Suite("Sandbox console", .timeLimit(.minutes(3)))
struct SandboxConsoleTests {
  private static let key = "c0ntrol-k3y"

  private func withConsole(_ body: (SandboxClient, Int) async throws -> Void) async throws {
    var configuration = SandboxConfiguration(logLevel: .warning, controlKey: Self.key)
    configuration.servesConsole = true
    try await withSandbox(configuration) { client in try await body(client, client.sandbox.port) }
  }

  /// A raw request: the head's lines and a body, `Host` the Sandbox's own unless `headers` names another.
  private func raw(
    _ port: Int, _ method: String, _ target: String, headers: [String] = [], body: String = ""
  ) async throws -> (status: Int, head: String, body: String) {
    var lines = ["\(method) \(target) HTTP/1.1"]
    if !headers.contains(where: { $0.lowercased().hasPrefix("host:") }) { lines.append("Host: 127.0.0.1:\(port)") }
    lines += headers + ["Content-Length: \(body.utf8.count)", "Connection: close", "", body]
    let answer = try await LoopbackExchange.closingSend(port: port, lines.joined(separator: "\r\n"))
    let parts = answer.components(separatedBy: "\r\n\r\n")
    let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
    return (status, parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
  }

  /// The server-sent events in a stream's text, in order: each one's name and its data, a JSON object. The chunks'
  /// sizes are lines of their own, between events (each event is written whole).
  private static func events(in text: String) -> [(name: String, data: [String: Any])] {
    // "\r\n" is one Character: lines are split on either end of line as the text's own scalars.
    text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").compactMap { block in
      let lines = block.components(separatedBy: "\n")
      guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst("event: ".count),
        let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst("data: ".count),
        let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]
      else { return nil }
      return (String(name), object)
    }
  }

  private func cookie(_ port: Int) async throws -> String {
    let opened = try await raw(port, "GET", "/_sandbox/console?key=\(Self.key)")
    let line = try #require(opened.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
    return String(line.dropFirst("set-cookie:".count).drop { $0 == " " }.prefix { $0 != ";" })
  }

  @Test("Only `keel sandbox serve`'s Sandbox serves it; the CLI's embedded ones and the default do not")
  func offByDefault() async throws {
    try await withSandbox(SandboxConfiguration(logLevel: .warning)) { client in
      let page = try await client.send("GET", "/_sandbox/console")
      let stream = try await client.send("GET", "/_sandbox/console/stream")
      #expect(page.status == 404 && stream.status == 404)
    }
  }

  @Test("The key in the URL sets an HTTP-only, same-site cookie that holds no key, and the page never shows it")
  func keyToCookie() async throws {
    try await withConsole { _, port in
      #expect(try await raw(port, "GET", "/_sandbox/console").status == 401)
      #expect(try await raw(port, "GET", "/_sandbox/console?key=wrong").status == 401)
      #expect(try await raw(port, "GET", "/_sandbox/console/console.js").status == 401)
      let opened = try await raw(port, "GET", "/_sandbox/console?key=\(Self.key)")
      #expect(opened.status == 303)
      let head = opened.head.lowercased()
      #expect(head.contains("\r\nlocation: /_sandbox/console\r\n"), "the key is gone from the address")
      let setCookie = try #require(head.split(separator: "\r\n").first { $0.hasPrefix("set-cookie:") })
      #expect(setCookie.contains("httponly") && setCookie.contains("samesite=strict"))
      #expect(setCookie.contains("path=/_sandbox") && setCookie.contains("keel_sandbox_console_\(port)="))
      let twoKeys = "/_sandbox/console?key=wrong&key=\(Self.key)"
      #expect(try await raw(port, "GET", twoKeys).status == 401, "one guess a request")
      #expect(!setCookie.contains(Self.key.lowercased()))

      let cookie = try await cookie(port)
      let page = try await raw(port, "GET", "/_sandbox/console", headers: ["Cookie: \(cookie)"])
      #expect(page.status == 200)
      #expect(page.body.contains("<html") && !page.body.contains(Self.key) && !page.body.contains(cookie))
      #expect(page.head.lowercased().contains("content-security-policy: default-src 'self'"))
      #expect(page.head.lowercased().contains("x-frame-options: deny"))
      for file in ["console.js", "console.css"] {
        let asset = try await raw(port, "GET", "/_sandbox/console/\(file)", headers: ["Cookie: \(cookie)"])
        #expect(asset.status == 200 && !asset.body.contains(Self.key), "\(file)")
      }
      #expect(try await raw(port, "GET", "/_sandbox/console/none.js", headers: ["Cookie: \(cookie)"]).status == 404)
    }
  }

  @Test("The cookie drives the control plane only from the page: its header, its origin, a loopback host")
  func writesFromThePageAlone() async throws {
    try await withConsole { client, port in
      let cookie = "Cookie: \(try await cookie(port))"
      let own = "Origin: http://127.0.0.1:\(port)"
      #expect(try await raw(port, "GET", "/_sandbox/stats", headers: [cookie]).status == 200, "a read")
      #expect(try await raw(port, "GET", "/_sandbox/stats", headers: ["Cookie: keel_sandbox_console=x"]).status == 401)
      let fault = #"{"route":"/v3/users","status":503}"#
      for (headers, status) in [
        ([cookie], 401),  // a form post from anywhere sends no header
        ([cookie, own], 401),
        ([cookie, "Sandbox-Console: 1"], 401),  // a write without an origin is not the page's
        ([cookie, "Sandbox-Console: 1", "Origin: http://127.0.0.1:1"], 403),  // another port: same site, not origin
        ([cookie, "Sandbox-Console: 1", "Origin: http://evil.example"], 403),
        ([cookie, "Sandbox-Console: 1", own, "Sec-Fetch-Site: same-site"], 403),
        (["Host: evil.example:\(port)", cookie, "Sandbox-Console: 1", "Origin: http://evil.example:\(port)"], 403),
      ] {
        #expect(try await raw(port, "POST", "/_sandbox/faults", headers: headers, body: fault).status == status)
      }
      #expect(try await client.send("GET", "/v3/users").status == 200, "no refused write added the fault")
      // A name an attacker's DNS points at 127.0.0.1 reads nothing, even with no Origin (a same-origin read).
      let rebound = ["Host: evil.example:\(port)", "Sandbox-Key: \(Self.key)"]
      #expect(try await raw(port, "GET", "/_sandbox/state", headers: rebound).status == 403)
      #expect(
        try await raw(port, "GET", "/_sandbox/state", headers: ["Host: localhost:\(port)", cookie]).status == 200)
      // A browser's request with the key itself, from another origin, is refused too.
      let keyed = ["Sandbox-Key: \(Self.key)", "Origin: http://evil.example"]
      #expect(try await raw(port, "POST", "/_sandbox/reset", headers: keyed).status == 403)

      let added = try await raw(
        port, "POST", "/_sandbox/faults", headers: [cookie, "Sandbox-Console: 1", own, "Sec-Fetch-Site: same-origin"],
        body: fault)
      #expect(added.status == 200)
      #expect(try await client.send("GET", "/v3/users").status == 503, "the page's write is the API's")
    }
  }

  @Test("Faults are listed with their numbers and removed one by one")
  func faultsByNumber() async throws {
    try await withConsole { client, _ in
      let keyed = ["Sandbox-Key": Self.key]
      for route in ["/v3/users", "/v1/auth/login"] {
        let added = try await client.send(
          "POST", "/_sandbox/faults", json: ["route": route, "status": 503], headers: keyed)
        #expect(added.status == 200)
      }
      let listed = try await client.send("GET", "/_sandbox/faults", headers: keyed)
      let faults = try #require(listed.json["faults"] as? [[String: Any]])
      #expect(faults.map { $0["route"] as? String } == ["/v3/users", "/v1/auth/login"])
      let first = try #require(faults.first?["id"] as? Int)
      #expect(try await client.send("DELETE", "/_sandbox/faults/\(first)", headers: keyed).status == 200)
      #expect(try await client.send("DELETE", "/_sandbox/faults/\(first)", headers: keyed).status == 404)
      #expect(try await client.send("GET", "/v3/users").status == 200, "the removed fault no longer applies")
      let left = try await client.send("GET", "/_sandbox/faults", headers: keyed)
      #expect((left.json["faults"] as? [[String: Any]])?.count == 1)
    }
  }

  @Test("A journaled request's detail: its query, headers and body, with secrets masked as the logs mask them")
  func maskedDetail() async throws {
    try await withConsole { client, _ in
      let body = ["user_id": "u1", "nickname": "Ann", "profile_url": "", "password": "hunter2"]
      _ = try await client.send(
        "POST", "/v3/users?access_token=abc123&x=1", json: body, headers: ["Authorization": "Bearer s3cr3t"])
      let keyed = ["Sandbox-Key": Self.key]
      let rows = try #require(
        try await client.send("GET", "/_sandbox/requests", headers: keyed).json["requests"] as? [[String: Any]])
      let id = try #require(rows.last?["id"] as? Int)
      #expect((rows.last?["latencyMs"] as? Double ?? -1) >= 0)
      let detail = try await client.send("GET", "/_sandbox/requests/\(id)", headers: keyed)
      let text = String(decoding: detail.body, as: UTF8.self)
      for secret in ["abc123", "s3cr3t", "hunter2", "token-a"] { #expect(!text.contains(secret), "\(secret)") }
      #expect(detail.json["query"] as? String == "access_token=***&x=1")
      let headers = try #require(detail.json["headers"] as? [String: String])
      #expect(headers["authorization"] == "***" && headers["api-token"] == "***")
      #expect((detail.json["body"] as? String)?.contains(#""nickname":"Ann""#) == true)
      for missing in ["\(id + 1)", "0", "-9223372036854775808", "x"] {
        #expect(try await client.send("GET", "/_sandbox/requests/\(missing)", headers: keyed).status == 404)
      }
    }
  }

  @Test("The stream sends the journal as it is, then each request as it comes, then the state")
  func stream() async throws {
    try await withConsole { client, port in
      _ = try await client.send("GET", "/v3/users/before")
      let cookie = try await cookie(port)
      let journalsHeard = Mutex(0)
      let reading = Task {
        try await LoopbackExchange.reading(
          port: port, "GET /_sandbox/console/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: \(cookie)\r\n\r\n",
          wait: 30
        ) { text in
          let journals = text.components(separatedBy: "event: journal\n").count - 1
          journalsHeard.withLock { $0 = journals }
          return text.contains("/v3/users/again") && text.contains("event: state")
        }
      }
      // A real server's stream: waited for in steps of 10 ms, 10 s at most each time.
      #expect(await poll(every: .milliseconds(10), for: .seconds(10)) { journalsHeard.withLock { $0 } >= 1 })
      _ = try await client.send("GET", "/v3/users/after")
      // A reset sends the journal again, empty, and numbering starts over. The next request waits for it: a stream that
      // read the journal only after that request would send it in the journal, rightly, not as a row of its own.
      #expect(try await client.send("POST", "/_sandbox/reset", headers: ["Sandbox-Key": Self.key]).status == 200)
      #expect(await poll(every: .milliseconds(10), for: .seconds(10)) { journalsHeard.withLock { $0 } >= 2 })
      _ = try await client.send("GET", "/v3/users/again")
      let heard = try await reading.value
      #expect(heard.lowercased().contains("content-type: text/event-stream"))
      #expect(!heard.contains(Self.key))
      let events = Self.events(in: heard)
      func paths(_ rows: Any?) -> [String] { (rows as? [[String: Any]] ?? []).compactMap { $0["path"] as? String } }
      let journals = events.indices.filter { events[$0].name == "journal" }
      let first = try #require(journals.first)
      #expect(paths(events[first].data["requests"]) == ["/v3/users/before"])
      let next = events[(first + 1)...].first { $0.name != "state" }
      #expect(next?.name == "request" && next?.data["path"] as? String == "/v3/users/after")
      #expect(events.contains { $0.name == "state" })
      let reset = try #require(journals.last)
      #expect(reset != first && paths(events[reset].data["requests"]).isEmpty)
      // Numbering starts over: the rows after the reset are 1, 2, … (a request the server answered late, after the
      // reset, may come before `again`).
      let after = events[(reset + 1)...].filter { $0.name == "request" }
      let rows = after.map { "\($0.data["id"] ?? "-") \($0.data["path"] ?? "-")" }
      #expect(after.map { $0.data["id"] as? Int } == Array(1...max(after.count, 1)), "\(rows)")
      #expect(after.contains { $0.data["path"] as? String == "/v3/users/again" }, "\(rows)")
    }
  }
}
