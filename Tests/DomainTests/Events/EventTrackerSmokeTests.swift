import Clocks
import Foundation
import Networking
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct EventTrackerSmokeTests {
  @Test("A flush delivers what was tracked, and the status says so")
  func flushDelivers() async throws {
    let transport = FakeTransport(FakeTransport.json(200, #"{"accepted":3,"duplicates":0}"#))
    let tracker = try EventTracker(
      baseURL: URL(string: "http://events.test")!, apiToken: "token",
      queueURL: try temporaryDirectory().appendingPathComponent("events.sqlite"), transport: transport,
      monitor: ManualNetworkMonitor(.online), clock: TestClock())
    for index in 0..<3 { try await tracker.track(AnalyticsEvent(name: "e\(index)")) }
    #expect(tracker.status.pending == 3)
    await tracker.flush()
    #expect(tracker.status.pending == 0)
    #expect(tracker.status.delivered == 3)
    let body = try #require(transport.requests.first?.httpBody)
    let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    #expect((json["events"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["e0", "e1", "e2"])
    await tracker.shutDown()
  }
}
