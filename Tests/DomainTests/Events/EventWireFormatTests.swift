import Foundation
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS E9, E10, E13: each event on the wire, in Keel's format and in Segment's.
/// `EventTrackerSegmentTests` has the Sandbox's Segment checker accept a tracker's uploads to `/v1/batch`; every other
/// tracker test against the Sandbox sends Keel's format, but `EventTrackerDeliveryTests`, which keeps Segment's 500 KB
/// batch limit there. The encodings are pure logic that needs no server.
@Suite("Event wire formats")
struct EventWireFormatTests {
  static let id = UUID(uuidString: "00000000-0000-4000-8000-000000000007")!

  @Test("Keel's format carries the identity, the context and the kind beside the event's own fields")
  func keel() throws {
    let event = AnalyticsEvent(
      kind: .screen, name: "Home", properties: ["tab": "feed"], timestamp: Date(timeIntervalSince1970: 1.5),
      eventId: Self.id, anonymousId: "a-1", userId: "u-1", context: ["locale": "en-US"])
    let json = String(decoding: try EventsRouter.encode(event), as: UTF8.self)
    #expect(
      json == #"{"anonymousId":"a-1","context":{"locale":"en-US"},"eventId":"00000000-0000-4000-8000-000000000007","#
        + #""name":"Home","properties":{"tab":"feed"},"timestamp":1500,"type":"screen","userId":"u-1"}"#)
  }

  @Test("Segment's format: type, messageId, ISO 8601 timestamp; event/properties, name/properties or traits")
  func segment() throws {
    let timestamp = Date(timeIntervalSince1970: 1_800_000_000.25)
    let track = AnalyticsEvent(
      kind: .track, name: "Song Played", properties: ["plays": 3], timestamp: timestamp, eventId: Self.id,
      anonymousId: "a-1", context: ["library": ["name": "keel"]])
    #expect(
      String(decoding: try EventsRouter.encode(track, format: .segment), as: UTF8.self)
        == #"{"anonymousId":"a-1","context":{"library":{"name":"keel"}},"event":"Song Played","#
        + #""messageId":"00000000-0000-4000-8000-000000000007","properties":{"plays":3},"#
        + #""timestamp":"2027-01-15T08:00:00.250Z","type":"track"}"#)
    let identify = AnalyticsEvent(
      kind: .identify, name: "identify", traits: ["plan": "pro"], timestamp: timestamp, eventId: Self.id,
      anonymousId: "a-1", userId: "u-42")
    #expect(
      String(decoding: try EventsRouter.encode(identify, format: .segment), as: UTF8.self)
        == #"{"anonymousId":"a-1","messageId":"00000000-0000-4000-8000-000000000007","#
        + #""timestamp":"2027-01-15T08:00:00.250Z","traits":{"plan":"pro"},"type":"identify","userId":"u-42"}"#)
    let screen = AnalyticsEvent.screen("Home", timestamp: timestamp)
    let screenJSON = String(decoding: try EventsRouter.encode(screen, format: .segment), as: UTF8.self)
    #expect(screenJSON.contains(#""name":"Home""#) && screenJSON.contains(#""type":"screen""#))
    let body = String(
      decoding: EventsRouter.batchBody([Data("{}".utf8)], sentAt: timestamp, format: .segment), as: UTF8.self)
    #expect(body == #"{"sentAt":"2027-01-15T08:00:00.250Z","batch":[{}]}"#)
  }

  @Test("A tracker in Segment's format posts to /v1/batch with the token as the Basic user name")
  func segmentTracker() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(wireFormat: .segment))
    try await harness.tracker.track(AnalyticsEvent(name: "opened"))
    try await harness.tracker.identify(userId: "u-1")
    let report = await harness.tracker.flush()
    #expect(report.delivered == 2 && report.isComplete)
    #expect(harness.server.uploaded == ["opened", "identify"])
    let target = try #require(harness.server.targets.first)
    #expect(target.path == "/v1/batch")
    #expect(target.headers["Authorization"] == "Basic " + Data("token:".utf8).base64EncodedString())
    #expect(target.headers["Api-Token"] == nil)
    await harness.tracker.shutDown()
  }

  @Test("In Segment's format a batch stays within the API's 500 KB, whatever maxBatchBytes says")
  func segmentLimits() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(wireFormat: .segment))
    for index in 0..<30 {
      try await harness.tracker.track(
        AnalyticsEvent(name: "e\(index)", properties: ["text": .string(String(repeating: "x", count: 30_000))]))
    }
    await harness.tracker.flush()
    #expect(harness.server.uploaded.count == 30)
    #expect(harness.server.sizes.count > 1 && harness.server.sizes.allSatisfy { $0 <= 500_000 })
    await harness.tracker.shutDown()
  }

  @Test("The stored form, written without JSONEncoder, reads back as the same event: escapes, Unicode, numbers")
  func storedRoundTrip() throws {
    let event = AnalyticsEvent(
      kind: .identify, name: "quote \" back\\ slash / tab\t nl\n bell\u{7} é 🚀",
      properties: [
        "n": 3, "x": 0.1, "big": 1e300, "tiny": -2.5e-12, "neg": -0.0, "t": true, "f": false, "none": nil,
        "list": [1, "two", [3.5], ["k": "v"]], "nested": ["deep": ["deeper": "\u{0}"]],
      ],
      traits: ["plan": "pro"], timestamp: Date(timeIntervalSince1970: 1_800_000_000.123456), eventId: Self.id,
      anonymousId: "a\"1", userId: "ü", context: ["sessionId": 1_800_000_000_123, "os": ["name": "Linux"]])
    let decoded = try JSONDecoder().decode(AnalyticsEvent.self, from: event.storedJSON())
    #expect(decoded == event)
    let track = AnalyticsEvent(name: "plain", timestamp: Date(timeIntervalSinceReferenceDate: 0), eventId: Self.id)
    #expect(try JSONDecoder().decode(AnalyticsEvent.self, from: track.storedJSON()) == track)
  }

  @Test("The built-in context written from its bytes reads back as the merge: the event's own keys win")
  func builtInContext() throws {
    let builtIn = BuiltInContext(["os": ["name": "Linux"], "locale": "en-US", "library": ["name": "keel"]])
    var event = AnalyticsEvent(name: "open", eventId: Self.id)
    let plain = try JSONDecoder().decode(AnalyticsEvent.self, from: event.storedJSON(adding: builtIn, sessionId: 42))
    #expect(
      plain.context == ["os": ["name": "Linux"], "locale": "en-US", "library": ["name": "keel"], "sessionId": 42])
    event.context = ["locale": "fr-FR", "sessionId": 7, "campaign": "spring"]
    let own = try JSONDecoder().decode(AnalyticsEvent.self, from: event.storedJSON(adding: builtIn, sessionId: 42))
    #expect(
      own.context == [
        "os": ["name": "Linux"], "locale": "fr-FR", "library": ["name": "keel"], "sessionId": 7, "campaign": "spring",
      ])
  }

  @Test("An event stored before identity and context existed still reads, as a track")
  func olderPayload() throws {
    let stored = #"{"eventId":"00000000-0000-4000-8000-000000000007","name":"open","timestamp":0,"properties":{}}"#
    let event = try JSONDecoder().decode(AnalyticsEvent.self, from: Data(stored.utf8))
    #expect(event.kind == .track && event.anonymousId == nil && event.context.isEmpty && event.traits.isEmpty)
  }
}
