import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §3: batches, deduplication by eventId, limits, listing and stats.
@Suite("Sandbox event ingestion", .timeLimit(.minutes(3)))
struct EventIngestionTests {
  static func event(_ id: UUID = UUID(), name: String = "screen_view") -> [String: Any] {
    ["eventId": id.uuidString, "name": name, "timestamp": 1_700_000_000_000, "properties": ["screen": "home"]]
  }

  static func batch(_ events: [[String: Any]]) -> [String: Any] { ["sentAt": 1_700_000_000_500, "events": events] }

  @Test("A batch is accepted; a redelivered event counts as a duplicate and is stored once")
  func deduplication() async throws {
    try await withSandbox { client in
      let repeated = UUID()
      let first = try await client.send(
        "POST", "/v1/events/batch", json: Self.batch([Self.event(repeated), Self.event(), Self.event()]))
      #expect(first.status == 200)
      #expect(first.json["accepted"] as? Int == 3)
      #expect(first.json["duplicates"] as? Int == 0)

      let second = try await client.send(
        "POST", "/v1/events/batch", json: Self.batch([Self.event(repeated), Self.event()]))
      #expect(second.json["accepted"] as? Int == 1)
      #expect(second.json["duplicates"] as? Int == 1)

      let stats = try await client.send("GET", "/v1/events/stats").json
      #expect(stats["requests"] as? Int == 2)
      #expect(stats["unique"] as? Int == 4)
      #expect(stats["duplicates"] as? Int == 1)

      let page = try await client.send("GET", "/v1/events?limit=3").json
      #expect((page["events"] as? [Any])?.count == 3)
      #expect(page["next"] as? Int == 3)
      let rest = try await client.send("GET", "/v1/events?limit=3&after=3").json
      #expect((rest["events"] as? [Any])?.count == 1)
      #expect(rest["next"] is NSNull)
    }
  }

  @Test("More than 500 events or 1 MiB is 413; a malformed batch is 400; no Api-Token is 401")
  func limits() async throws {
    try await withSandbox { client in
      let tooMany = try await client.send(
        "POST", "/v1/events/batch", json: Self.batch((0..<501).map { _ in Self.event() }))
      #expect(tooMany.status == 413)
      #expect(
        try await client.send("POST", "/v1/events/batch", json: Self.batch((0..<500).map { _ in Self.event() })).status
          == 200)

      let huge = Self.batch([Self.event(name: String(repeating: "x", count: 1 << 20))])
      #expect(try await client.send("POST", "/v1/events/batch", json: huge).status == 413)

      for malformed: Any in [["events": []], Self.batch([["name": "no id"]]), Self.batch([Self.event(name: "")])] {
        let response = try await client.send("POST", "/v1/events/batch", json: malformed)
        #expect(response.status == 400)
        #expect(response.json["errorCode"] as? String == "E01")
      }

      var anonymous = client
      anonymous.apiToken = nil
      let unauthorized = try await anonymous.send("POST", "/v1/events/batch", json: Self.batch([Self.event()]))
      #expect(unauthorized.status == 401)
      #expect(unauthorized.errorCode == 400_401)
    }
  }
}
