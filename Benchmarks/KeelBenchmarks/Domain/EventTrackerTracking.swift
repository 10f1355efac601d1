import Domain
import Foundation
import Persistence

/// The tracking measurements: `EventTracker.track` on a tracker holding ``EventTrackerBenchFixture/pendingBefore``
/// events, and ``EventTrackerNaivePeer/track(_:)`` on a file holding as many.
enum EventTrackerTracking {
  /// The microseconds each of `samples` sequential `track` calls took, in call order.
  static func keelLatencies(samples: Int, _ durability: Durability) async throws -> [Double] {
    try await EventTrackerBenchFixture.withPrefilledTracker(durability) { tracker in
      let clock = ContinuousClock()
      var latencies: [Double] = []
      latencies.reserveCapacity(samples)
      for index in 0..<samples {
        let event = EventTrackerBenchFixture.event(EventTrackerBenchFixture.pendingBefore + index)
        let start = clock.now
        try await tracker.track(event)
        latencies.append(nanoseconds(start.duration(to: clock.now)) / 1_000)
      }
      try check(tracker, tracked: samples)
      return latencies
    }
  }

  /// The microseconds each of `samples` sequential naive `track` calls took, in call order.
  static func peerLatencies(samples: Int) async throws -> [Double] {
    try await withPrefilledPeer { peer in
      let clock = ContinuousClock()
      return try (0..<samples).map { index in
        let event = EventTrackerBenchFixture.event(EventTrackerBenchFixture.pendingBefore + index)
        let start = clock.now
        try peer.track(event)
        return nanoseconds(start.duration(to: clock.now)) / 1_000
      }
    }
  }

  /// Events per second that `tasks` tasks tracking `events` events between them, each one event at a time, store.
  static func keelThroughput(events: Int, tasks: Int, _ durability: Durability) async throws -> Double {
    try await EventTrackerBenchFixture.withPrefilledTracker(durability) { tracker in
      let elapsed = try await secondsTracking(events: events, tasks: tasks) { try await tracker.track($0) }
      try check(tracker, tracked: events)
      return Double(events) / elapsed
    }
  }

  /// Events per second that `tasks` tasks tracking `events` events between them store in the naive file.
  static func peerThroughput(events: Int, tasks: Int) async throws -> Double {
    try await withPrefilledPeer { peer in
      let elapsed = try await secondsTracking(events: events, tasks: tasks) { try peer.track($0) }
      guard peer.count == EventTrackerBenchFixture.pendingBefore + events else {
        throw BenchmarkError(description: "peer: \(peer.count) pending")
      }
      return Double(events) / elapsed
    }
  }

  /// The seconds `tasks` tasks take to hand `track` `events` events between them, each task one event at a time.
  private static func secondsTracking(
    events: Int, tasks: Int, _ track: @escaping @Sendable (AnalyticsEvent) async throws -> Void
  ) async throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<tasks {
        group.addTask {
          for index in stride(from: task, to: events, by: tasks) {
            try await track(EventTrackerBenchFixture.event(EventTrackerBenchFixture.pendingBefore + index))
          }
        }
      }
      try await group.waitForAll()
    }
    return nanoseconds(start.duration(to: clock.now)) / 1e9
  }

  private static func check(_ tracker: EventTracker, tracked: Int) throws {
    let status = tracker.status
    guard status.pending == EventTrackerBenchFixture.pendingBefore + tracked, status.dropped == 0,
      status.delivered == 0
    else { throw BenchmarkError(description: "keel: \(status) after tracking \(tracked)") }
  }

  private static func withPrefilledPeer<T>(_ body: (EventTrackerNaivePeer) async throws -> T) async throws -> T {
    let directory = try EventTrackerBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let peer = try EventTrackerNaivePeer(
      url: directory.appendingPathComponent("events.json"),
      pending: (0..<EventTrackerBenchFixture.pendingBefore).map(EventTrackerBenchFixture.event))
    return try await body(peer)
  }
}
