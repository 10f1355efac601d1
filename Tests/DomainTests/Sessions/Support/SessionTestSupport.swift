import Clocks
import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence

@testable import Domain

/// A time a test sets and moves by hand, for token expiry.
final class ManualNow: Sendable {
  private let date = Locked(Date(timeIntervalSince1970: 1_700_000_000))

  /// The time now.
  var now: @Sendable () -> Date { { [date] in date.withLock { $0 } } }

  /// Moves the time on by `seconds`.
  func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
}

/// A secure store whose writes fail, to show that nothing is half-kept.
final class FailingSecureStore: SecureStore {
  func data(forKey key: String) throws -> Data? { nil }
  func set(_ data: Data, forKey key: String) throws { throw PersistenceError(.io, "The test store refuses writes.") }
  func removeData(forKey key: String) throws {}
}

/// A manager on `transport` and `store`, with a test clock and a logger that discards everything unless given one.
func makeSessionManager(
  _ transport: any HTTPTransport,
  store: any SecureStore = InMemorySecureStore(),
  now: ManualNow = ManualNow(),
  logger: Logger = Logger(label: "keel.tests.sessions") { _ in SwiftLogNoOpLogHandler() }
) -> SessionManager {
  SessionManager(
    baseURL: FakeAuthBackend.baseURL, transport: transport, secureStore: store, clock: TestClock(), now: now.now,
    logger: logger)
}

extension SecureStore {
  /// The session the store keeps, if any.
  func storedSession() throws -> Credentials? { try value(Credentials.self, forKey: SessionManager.storageKey) }
}

/// The demo user the fake backend signs in.
let demoUser = SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: "demo")
