import Clocks
import Foundation
import KeelJSON
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS E10, E11: who the events are about, where they happen, the plugins, and consent.
/// `EventTrackerSegmentTests` shows identify, the user and anonymous ids and the context delivered to the Sandbox. The
/// rest is decided on the device before anything is sent (restarts, reset, plugins, consent), and the session's
/// 30-minute renewal needs a test clock.
@Suite("EventTracker identity, context, plugins and consent", .timeLimit(.minutes(3)))
struct EventTrackerIdentityTests {
  /// Nothing is uploaded unless a test flushes: a restarted tracker would otherwise deliver, and delete, the events
  /// the test reads back from the queue.
  static let manual = EventTrackerConfiguration(deliversOnItsOwn: false)

  /// The stored events, oldest first.
  private func stored(_ harness: EventsHarness) async throws -> [AnalyticsEvent] {
    try await harness.tracker.queue.peek(limit: 100, now: .distantFuture).map(\.element)
  }

  @Test("The anonymous id is made once and kept across restarts; identify names the user on later events, too")
  func identityAcrossRestarts() async throws {
    let first = try EventsHarness(configuration: Self.manual)
    let anonymousId = first.tracker.anonymousId
    #expect(UUID(uuidString: anonymousId) != nil && anonymousId == anonymousId.lowercased())
    try await first.tracker.track(AnalyticsEvent(name: "before"))
    try await first.tracker.identify(userId: "u-42", traits: ["plan": "pro"])
    await first.tracker.shutDown()

    let second = try EventsHarness(configuration: Self.manual, queueURL: first.queueURL)
    #expect(second.tracker.anonymousId == anonymousId)
    #expect(second.tracker.userId == "u-42")
    try await second.tracker.track(AnalyticsEvent(name: "after"))
    let events = try await stored(second)
    #expect(events.map(\.name) == ["before", "identify", "after"])
    #expect(events.map(\.kind) == [.track, .identify, .track])
    #expect(events.allSatisfy { $0.anonymousId == anonymousId })
    #expect(events.map(\.userId) == [nil, "u-42", "u-42"])
    #expect(events[1].traits == ["plan": "pro"])
    await second.tracker.shutDown()
  }

  @Test("reset() forgets the user and starts a new anonymous id, kept across restarts; stored events keep theirs")
  func reset() async throws {
    let first = try EventsHarness(configuration: Self.manual)
    let before = first.tracker.anonymousId
    try await first.tracker.identify(userId: "u-1")
    try first.tracker.reset()
    #expect(first.tracker.userId == nil && first.tracker.anonymousId != before)
    try await first.tracker.track(.screen("Sign in"))
    await first.tracker.shutDown()

    let second = try EventsHarness(configuration: Self.manual, queueURL: first.queueURL)
    #expect(second.tracker.anonymousId == first.tracker.anonymousId && second.tracker.userId == nil)
    let events = try await stored(second)
    #expect(events.map(\.anonymousId) == [before, second.tracker.anonymousId])
    #expect(events.map(\.userId) == ["u-1", nil])
    #expect(events[1].kind == .screen && events[1].name == "Sign in")
    await second.tracker.shutDown()
  }

  @Test("A bad user id or traits past the cap are typed errors, and nothing changes")
  func badIdentify() async throws {
    let harness = try EventsHarness(
      configuration: EventTrackerConfiguration(maxPropertiesBytes: 64, deliversOnItsOwn: false))
    for userId in ["", "  ", "a\nb", String(repeating: "x", count: 257)] {
      let error = await #expect(throws: EventTrackerError.self) { try await harness.tracker.identify(userId: userId) }
      #expect(error?.kind == .invalidEvent)
    }
    let error = await #expect(throws: EventTrackerError.self) {
      try await harness.tracker.identify(userId: "u", traits: ["bio": .string(String(repeating: "b", count: 100))])
    }
    #expect(error?.kind == .invalidEvent)
    #expect(harness.tracker.userId == nil)
    #expect(try await harness.tracker.queue.count() == 0)
    await harness.tracker.shutDown()
  }

  @Test("Every event gets the context: app, OS, device, locale, time zone, library; the app's own context wins")
  func context() async throws {
    let harness = try EventsHarness(configuration: Self.manual)
    var event = AnalyticsEvent(name: "open")
    event.context = ["locale": "fr-FR", "campaign": ["name": "spring"]]
    try await harness.tracker.track(event)
    let context = try #require(try await stored(harness).first?.context)
    #expect(context["app"] == ["name": "Demo", "version": "1.2.0", "build": "45"])
    #expect(context["os"] == ["name": "Linux", "version": "6.1.0"])
    #expect(context["device"] == ["model": "x86_64"])
    #expect(context["timezone"] == "Europe/Paris")
    #expect(context["library"] == ["name": "keel", "version": .string(KeelVersion.current)])
    #expect(context["locale"] == "fr-FR")
    #expect(context["campaign"] == ["name": "spring"])
    await harness.tracker.shutDown()
  }

  @Test("The session id is kept while events come, and renews after 30 minutes without any")
  func session() async throws {
    let harness = try EventsHarness(
      configuration: EventTrackerConfiguration(flushInterval: .seconds(86_400), deliversOnItsOwn: false))
    try await harness.tracker.track(AnalyticsEvent(name: "a"))
    await harness.clock.advance(by: .seconds(29 * 60))
    try await harness.tracker.track(AnalyticsEvent(name: "b"))
    await harness.clock.advance(by: .seconds(30 * 60))
    try await harness.tracker.track(AnalyticsEvent(name: "c"))
    let sessions = try await stored(harness).map { $0.context["sessionId"] }
    let first = JSONValue.number((EventsHarness.epoch.timeIntervalSince1970 * 1_000).rounded(.down))
    #expect(sessions[0] == first && sessions[1] == first)
    #expect(sessions[2] != first && sessions[2] != nil)
    await harness.tracker.shutDown()
  }

  /// Adds a property, drops events named `drop`, fails on events named `boom`.
  struct TestPlugin: EventPlugin {
    struct Failure: Error {}
    let name: String
    func process(_ event: AnalyticsEvent) throws -> AnalyticsEvent? {
      if event.name == "drop" { return nil }
      if event.name == "boom" { throw Failure() }
      var event = event
      var seen: [JSONValue] = []
      if case .array(let earlier)? = event.properties["seen"] { seen = earlier }
      event.properties["seen"] = .array(seen + [.string(name)])
      return event
    }
  }

  @Test("Plugins run in order after the context; one drops on purpose (counted); one that throws loses nothing")
  func plugins() async throws {
    let harness = try EventsHarness(
      configuration: Self.manual, plugins: [TestPlugin(name: "first"), TestPlugin(name: "second")])
    #expect(try await harness.tracker.track(AnalyticsEvent(name: "kept")) == .stored)
    #expect(try await harness.tracker.track(AnalyticsEvent(name: "drop")) == .droppedByPlugin("first"))
    #expect(try await harness.tracker.track(AnalyticsEvent(name: "boom", properties: ["n": 1])) == .stored)
    let events = try await stored(harness)
    #expect(events.map(\.name) == ["kept", "boom"])
    #expect(events[0].properties["seen"] == ["first", "second"])
    #expect(events[1].properties == ["n": 1], "as it was: both plugins threw")
    #expect(events[1].context["library"] != nil, "the built-in context is not a plugin's to lose")
    #expect(harness.tracker.status.droppedByPlugins == 1)
    await harness.tracker.shutDown()
  }

  @Test("Opted out, nothing is stored and each refusal is counted; the choice survives a restart; opting in resumes")
  func consent() async throws {
    let first = try EventsHarness(configuration: Self.manual)
    try await first.tracker.track(AnalyticsEvent(name: "before"))
    try await first.tracker.optOut()
    #expect(try await first.tracker.track(AnalyticsEvent(name: "refused")) == .refusedByConsent)
    #expect(try await first.tracker.identify(userId: "u") == .refusedByConsent)
    #expect(first.tracker.status.refusedByConsent == 2 && first.tracker.status.isOptedOut)
    await first.tracker.shutDown()

    let second = try EventsHarness(configuration: Self.manual, queueURL: first.queueURL)
    #expect(second.tracker.isOptedOut && second.tracker.status.isOptedOut)
    #expect(try await second.tracker.track(AnalyticsEvent(name: "still refused")) == .refusedByConsent)
    try second.tracker.optIn()
    #expect(try await second.tracker.track(AnalyticsEvent(name: "after")) == .stored)
    #expect(try await stored(second).map(\.name) == ["before", "after"], "kept unless purged")
    await second.tracker.shutDown()

    let third = try EventsHarness(configuration: Self.manual, queueURL: first.queueURL)
    #expect(!third.tracker.isOptedOut)
    await third.tracker.shutDown()
  }

  @Test("Opting out with a purge deletes what waits, and nothing of it is uploaded")
  func purge() async throws {
    let harness = try EventsHarness(configuration: Self.manual)
    try await harness.track(3)
    try await harness.tracker.optOut(purgingQueued: true)
    #expect(harness.tracker.status.pending == 0)
    await harness.tracker.flush()
    #expect(harness.server.uploads.isEmpty)
    #expect(try await harness.tracker.queue.count() == 0)
    await harness.tracker.shutDown()
  }

  @Test("The identity lives in the key-value store it is given")
  func settingsStore() async throws {
    let settings = InMemoryKeyValueStore()
    let harness = try EventsHarness(configuration: Self.manual, settings: settings)
    try await harness.tracker.identify(userId: "u-7")
    let kept = try #require(try settings.value(AnalyticsIdentity.self, forKey: AnalyticsIdentity.key))
    #expect(kept.userId == "u-7" && kept.anonymousId == harness.tracker.anonymousId && !kept.optedOut)
    await harness.tracker.shutDown()
  }
}
