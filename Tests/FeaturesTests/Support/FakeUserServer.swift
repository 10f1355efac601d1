import Clocks
import Domain
import Features
import TestSupport

/// A user manager for the import: the user at position `i` of the list is answered `i + 1` seconds after the import
/// started (the 1-per-second limiter's pace), on a TestClock, whenever its request arrives.
final class FakeUserServer: Sendable {
  let clock = TestClock()
  let calls = Recorder<String>()
  let cancelled = Recorder<String>()
  private let refused: Set<String>
  /// +1 when a request starts, -1 when it ends, in the order they happened.
  private let inFlightChanges = Recorder<Int>()

  init(refusing refused: Set<String> = []) {
    self.refused = refused
  }

  struct Exists: Error, CustomStringConvertible {
    let userId: String
    var description: String { "\(userId) exists already" }
  }

  func user(_ params: UserCreationParams) -> User { User(userId: params.userId, nickname: params.nickname) }

  /// The most requests that were in flight at once.
  var maxInFlight: Int {
    inFlightChanges.elements.reduce(into: (now: 0, max: 0)) { running, change in
      running.now += change
      running.max = max(running.max, running.now)
    }.max
  }

  var feature: UserImportFeature {
    let start = clock.now
    return UserImportFeature(
      create: { [self] params in
        let index = Int(params.userId.dropFirst("user-".count))!
        calls.record(params.userId)
        inFlightChanges.record(1)
        defer { inFlightChanges.record(-1) }
        do {
          try await clock.sleep(until: start.advanced(by: .seconds(index + 1)))
        } catch {
          cancelled.record(params.userId)
          throw error
        }
        if refused.contains(params.userId) { throw Exists(userId: params.userId) }
        return user(params)
      }, clock: clock)
  }
}
