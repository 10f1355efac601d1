import Clocks
import Foundation
import Logging
import RateLimiting
import TestSupport

@testable import Domain

/// A user manager against a ``FakeSendbird``, with Sendbird's limiter (1 per second, 10 in line) on a test clock.
struct UsersHarness {
  let clock = TestClock()
  let server: FakeSendbird
  let store: UserStore
  let manager: UserManager

  init(
    store: UserStore = UserStore(), logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    server = FakeSendbird(clock: clock)
    self.store = store
    manager = UserManager(
      transport: server, limiter: LeakyBucket.userManager(clock: clock), store: store,
      baseURL: URL(string: "https://sendbird.test")!, retryPolicy: nil, clock: clock, logger: logger)
  }

  /// A harness whose manager is already pointed at application `app`.
  static func initialized(
    _ app: String = "app-1", store: UserStore = UserStore(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
  ) throws -> UsersHarness {
    let harness = UsersHarness(store: store, logger: logger)
    try harness.manager.initApplication(applicationId: app, apiToken: "token-\(app)")
    return harness
  }

  /// Advances the clock one second at a time, whenever a request waits for the limiter, until `done` holds.
  func advance(until done: () -> Bool) async -> Bool {
    for _ in 0..<100 {
      if done() { return true }
      if await clock.sleeperArrived(maxChecks: 2_000) { await clock.advance(by: .seconds(1)) }
    }
    return done()
  }
}
