import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E10, E13 against the Sandbox: the tracker delivers in the Segment HTTP Tracking API's format, and the
/// Sandbox's checker, which holds each message to Segment's public specification field by field, accepts it.
@Suite("EventTracker in the Segment format against the Sandbox", .timeLimit(.minutes(3)))
struct EventTrackerSegmentTests {
  @Test("Track, screen and identify, with identity and context, are accepted by the Sandbox's Segment checker")
  func acceptedByTheChecker() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-segment")
    defer { try? FileManager.default.removeItem(at: directory) }
    // The helper's uploads wait as long as a loaded machine needs: with a 2 s limit, a whole suite on two cores has
    // timed every attempt out for the 30 s a drain used to have.
    let tracker = try EventsSandbox.tracker(on: sandbox, .urlSession, in: directory) { $0.wireFormat = .segment }

    try await tracker.track(AnalyticsEvent(name: "Song Played", properties: ["title": "Get Right", "plays": 3]))
    try await tracker.identify(userId: "u-42", traits: ["plan": "pro"])
    try await tracker.track(.screen("Home", properties: ["tab": "feed"]))
    // A drain, not one flush: on a loaded machine an upload can still fail, and is retried.
    let drained = await tracker.drain(timeout: .seconds(120))
    let status = tracker.status
    let anonymousId = tracker.anonymousId
    await tracker.shutDown()

    #expect(drained && status.delivered == 3 && status.deadLettered == 0, "\(status)")
    // The write key names the tenant an Api-Token of the same value names: the messages are listed with its events.
    let stored = try await EventsSandbox.storedEvents(on: sandbox)
    await sandbox.stop()
    #expect(stored.map { $0["type"] as? String } == ["track", "identify", "screen"])
    #expect(stored.map { $0["anonymousId"] as? String } == [anonymousId, anonymousId, anonymousId])
    #expect(stored.map { $0["userId"] as? String } == [nil, "u-42", "u-42"])
    #expect(stored[0]["event"] as? String == "Song Played")
    #expect(stored[2]["name"] as? String == "Home")
    #expect((stored[1]["traits"] as? [String: Any])?["plan"] as? String == "pro")
    let context = try #require(stored[0]["context"] as? [String: Any])
    #expect((context["library"] as? [String: Any])?["name"] as? String == "keel")
    #expect(context["sessionId"] is NSNumber && context["timezone"] is String && context["os"] is [String: Any])
    #expect(stored.allSatisfy { ($0["messageId"] as? String).flatMap(UUID.init(uuidString:)) != nil })
  }
}
