import Domain
import Foundation
import Sandbox

extension Demo {
  /// Signs in, expires the access token, and fires 10 calls at once: one refresh serves them all.
  func refreshOnce() async throws -> String {
    let sessions = dependencies.sessions
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    try await control.expireTokens()
    let refreshesBefore = try await control.statistics().counter("refreshes")
    let answers = try await withThrowingTaskGroup(of: SessionUser.self) { group in
      for _ in 0..<10 { group.addTask { try await sessions.me() } }
      return try await group.reduce(into: [SessionUser]()) { $0.append($1) }
    }
    let refreshes = try await control.statistics().counter("refreshes") - refreshesBefore
    try expect(answers == Array(repeating: user, count: 10), "the calls answered \(Set(answers))")
    try expect(refreshes == 1, "\(refreshes) refreshes for 10 calls")
    try await sessions.logout()
    return "signed in as \(user.email); 10 calls, 1 refresh; signed out"
  }

  /// Tracks events while 30% of uploads fail, then flushes until every one is delivered.
  func trackThroughFailures() async throws -> String {
    let tracker = try dependencies.events
    let uniquesBefore = try await control.statistics().counter("eventUniques")
    let failedBefore = try await control.statistics().responses("POST /v1/events/batch", status: 503)
    try await control.addFault(SandboxFault(route: "/v1/events/batch", status: 503, rate: 0.3))
    for number in 1...size.events {
      try await tracker.track(AnalyticsEvent(name: "demo_event", properties: ["number": .number(Double(number))]))
    }
    let deadline = ContinuousClock.now.advanced(by: .seconds(20))
    await tracker.flush()
    while tracker.status.pending > 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(100))  // the tracker retries on its own, after its backoff
      await tracker.flush()
    }
    try await control.removeFaults()
    let status = tracker.status
    await tracker.shutDown()
    let delivered = try await control.statistics().counter("eventUniques") - uniquesBefore
    let failedUploads = try await control.statistics().responses("POST /v1/events/batch", status: 503) - failedBefore
    try expect(status.pending == 0, "\(status.pending) events still pending after 20 s")
    try expect(delivered == size.events, "the Sandbox received \(delivered) distinct events, not \(size.events)")
    try expect(status.deadLettered == 0, "\(status.deadLettered) events were set aside")
    return "\(delivered) delivered once each; \(counted(failedUploads, "upload")) failed with 503 and were retried"
  }

  /// Loads one image three times: network, memory, and disk after the memory is cleared.
  func loadImage() async throws -> String {
    let loader = try dependencies.images
    let url = control.baseURL.appendingPathComponent("images/demo.png")
    let first = try await loader.data(for: url)
    let second = try await loader.data(for: url)
    loader.clearMemory()
    let third = try await loader.data(for: url)
    let stats = loader.statistics
    try expect(first.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the answer is not a PNG")
    try expect(first == second && second == third, "the three loads differ")
    try expect(
      (stats.networkLoads, stats.memoryHits, stats.diskHits) == (1, 1, 1),
      "network \(stats.networkLoads), memory \(stats.memoryHits), disk \(stats.diskHits) instead of 1, 1, 1")
    return "\(first.count) bytes: network, then memory, then disk"
  }
}
