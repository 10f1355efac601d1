import Foundation
import Testing

@testable import Sandbox

/// SandboxAPI §3.1, REQUIREMENTS E13: the Segment HTTP Tracking API's batch route and its checker.
@Suite("Sandbox Segment ingestion", .timeLimit(.minutes(3)))
struct SegmentIngestionTests {
  static let writeKey = "token-a"
  static var basic: [String: String] {
    ["Authorization": "Basic " + Data("\(writeKey):".utf8).base64EncodedString()]
  }

  static func track(_ id: String = UUID().uuidString, event: Any = "Song Played") -> [String: Any] {
    [
      "type": "track", "messageId": id, "anonymousId": "a-1", "event": event, "properties": ["n": 1],
      "timestamp": "2026-11-26T06:43:23.123Z", "context": ["library": ["name": "keel", "version": "0.1.0-dev"]],
    ]
  }

  static var identify: [String: Any] {
    [
      "type": "identify", "messageId": "m-identify", "userId": "u-42", "traits": ["plan": "pro"],
      "timestamp": "2026-11-26T06:43:22Z",
    ]
  }
  static var screen: [String: Any] {
    [
      "type": "screen", "messageId": "m-screen", "anonymousId": "a-1", "userId": "u-42", "name": "Home",
      "properties": [:], "timestamp": "2026-11-26T06:43:24.500+01:00",
    ]
  }

  @Test("A batch in the specification's shape is accepted with success, stored with the tenant's events, once each")
  func accepted() async throws {
    try await withSandbox { sandbox in
      let client = SandboxClient(sandbox.sandbox, apiToken: nil)
      let body: [String: Any] = [
        "batch": [Self.track("m-1"), Self.identify, Self.screen], "sentAt": "2026-11-26T06:44:00.000Z",
      ]
      let first = try await client.send("POST", "/v1/batch", json: body, headers: Self.basic)
      #expect(first.status == 200)
      #expect(first.json["success"] as? Bool == true)
      let again = try await client.send("POST", "/v1/batch", json: ["batch": [Self.track("M-1")]], headers: Self.basic)
      #expect(again.status == 200)
      // The write key names the same tenant as an Api-Token with the same value.
      let stats = try await sandbox.send("GET", "/v1/events/stats").json
      #expect(stats["unique"] as? Int == 3)
      #expect(stats["duplicates"] as? Int == 1)
      let inBody = try await client.send(
        "POST", "/v1/batch", json: ["batch": [Self.track()], "writeKey": Self.writeKey])
      #expect(inBody.status == 200, "the write key may come in the body instead")
    }
  }

  @Test("Each rule of the specification a message breaks is a 400 naming the field")
  func refusals() async throws {
    var untyped = Self.track()
    untyped["type"] = "pageview"
    var anonymous = Self.track()
    anonymous["anonymousId"] = nil
    var badTime = Self.track()
    badTime["timestamp"] = "26/11/2026"
    var longId = Self.track()
    longId["messageId"] = String(repeating: "m", count: 101)
    var badProperties = Self.track()
    badProperties["properties"] = ["not", "an", "object"]
    var badTraits = Self.identify
    badTraits["traits"] = "pro"
    let cases: [(Any, String)] = [
      (["events": [Self.track()]], "batch:"),
      (["batch": [untyped]], "batch[0].type"),
      (["batch": [Self.track(), anonymous]], "batch[1]: an anonymousId or a userId"),
      (["batch": [Self.track(event: "")]], "batch[0].event"),
      (["batch": [Self.track(event: 7)]], "batch[0].event"),
      (["batch": [badTime]], "batch[0].timestamp"),
      (["batch": [longId]], "batch[0].messageId"),
      (["batch": [badProperties]], "batch[0].properties"),
      (["batch": [badTraits]], "batch[0].traits"),
      (["batch": [Self.track()], "sentAt": 1_700_000_000], "sentAt"),
      (["batch": [Self.track(event: String(repeating: "x", count: 33 * 1_024))]], "at most 32768 bytes"),
    ]
    try await withSandbox { sandbox in
      let client = SandboxClient(sandbox.sandbox, apiToken: nil)
      for (body, field) in cases {
        let response = try await client.send("POST", "/v1/batch", json: body, headers: Self.basic)
        #expect(response.status == 400, "\(field)")
        #expect(response.json["code"] as? String == "invalid_request", "\(field)")
        #expect((response.json["message"] as? String)?.contains(field) == true, "\(response.json)")
      }
      let stats = try await sandbox.send("GET", "/v1/events/stats").json
      #expect(stats["unique"] as? Int == 0, "a refused batch stores none of its messages")
    }
  }

  @Test("No write key is 401; more than 500 KB is 400; a body that is not JSON is 400")
  func authenticationAndSize() async throws {
    try await withSandbox { sandbox in
      let client = SandboxClient(sandbox.sandbox, apiToken: nil)
      let anonymous = try await client.send("POST", "/v1/batch", json: ["batch": [Self.track()]])
      #expect(anonymous.status == 401)
      let huge = (0..<20).map { _ in Self.track(event: String(repeating: "x", count: 30 * 1_024)) }
      let tooLarge = try await client.send("POST", "/v1/batch", json: ["batch": huge], headers: Self.basic)
      #expect(tooLarge.status == 400)
      #expect(tooLarge.json["code"] as? String == "too_large")
      let garbage = try await client.send("POST", "/v1/batch", raw: Data("{".utf8), headers: Self.basic)
      #expect(garbage.status == 400)
    }
  }

  @Test("ISO 8601 dates and times with a zone pass; others do not")
  func iso8601() {
    for text in ["2026-11-26T06:43:23Z", "2026-11-26T06:43:23.123Z", "2026-11-26T06:43:23.123456+00:00"] {
      #expect(SegmentIngestion.isISO8601(text), "\(text)")
    }
    for text in ["2026-11-26", "2026-13-26T06:43:23Z", "2026-11-26T06:43:23", "1700000000", "2026-11-26 06:43:23Z"] {
      #expect(!SegmentIngestion.isISO8601(text), "\(text)")
    }
  }
}
