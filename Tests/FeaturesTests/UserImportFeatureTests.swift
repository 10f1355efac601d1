import Clocks
import Domain
import Features
import FeaturesTesting
import TestSupport
import Testing

/// UserImportFeature through an exhaustive TestStore on a TestClock (REQUIREMENTS F1–F3, U4, U8, D1).
@Suite(.timeLimit(.minutes(1))) struct UserImportFeatureTests {
  @Test("12 users: two batches (10, then 2), progress and time left after each user, a failure kept, then the report")
  @MainActor
  func importsInBatches() async {
    let users = (0..<12).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let server = FakeUserServer(refusing: ["user-3"])
    let store = TestStore(initialState: UserImportFeature.State(users: users), reducer: server.feature)

    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.batchStarted(0..<10))) { $0.started = 10 }
    for index in 0..<12 {
      if index == 10 { await store.receive(.internal(.batchStarted(10..<12))) { $0.started = 12 } }
      await server.clock.advance(by: .seconds(1))  // the rate limiter's pace
      let elapsed = Duration.seconds(index + 1)
      let left = 11 - index
      if index == 3 {
        await store.receive(.response(.failed(index: 3, reason: "user-3 exists already", elapsed: elapsed))) {
          $0.outcomes[3] = .failed(reason: "user-3 exists already")
          $0.elapsed = elapsed
          $0.estimatedTimeLeft = .seconds(left)
        }
      } else {
        await store.receive(.response(.created(index: index, user: server.user(users[index]), elapsed: elapsed))) {
          $0.outcomes[index] = .created(server.user(users[index]))
          $0.elapsed = elapsed
          $0.estimatedTimeLeft = left == 0 ? nil : .seconds(left)
        }
      }
    }
    #expect(store.state.progress == .init(done: 12, failed: 1, total: 12, estimatedTimeLeft: nil))
    await store.receive(.internal(.allBatchesFinished)) { $0.phase = .finished }
    var report = UserImportFeature.Report(wasCancelled: false, elapsed: .seconds(12))
    report.created = users.filter { $0.userId != "user-3" }.map(server.user)
    report.failures = [.init(index: 3, params: users[3], reason: "user-3 exists already")]
    await store.receive(.delegate(.finished(report)))
    await store.finish()
    #expect((1...UserImportFeature.batchSize).contains(server.maxInFlight), "never more than one batch at the limiter")
    #expect(server.calls.count == 12)
  }

  @Test("Cancel mid-batch: the requests in flight stop, nothing more is sent, the report splits what happened")
  @MainActor
  func cancels() async {
    let users = (0..<15).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let server = FakeUserServer()
    let store = TestStore(initialState: UserImportFeature.State(users: users), reducer: server.feature)
    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.batchStarted(0..<10))) { $0.started = 10 }
    for index in 0..<2 {
      await server.clock.advance(by: .seconds(1))
      await store.receive(
        .response(.created(index: index, user: server.user(users[index]), elapsed: .seconds(index + 1)))
      ) {
        $0.outcomes[index] = .created(server.user(users[index]))
        $0.elapsed = .seconds(index + 1)
        $0.estimatedTimeLeft = .seconds(14 - index)  // 1 s a user so far, 14 - index left
      }
    }

    await store.send(.view(.cancelTapped)) {
      $0.phase = .cancelled
      $0.estimatedTimeLeft = nil
    }
    var report = UserImportFeature.Report(wasCancelled: true, elapsed: .seconds(2))
    report.created = users[0..<2].map(server.user)
    report.interrupted = Array(users[2..<10])
    report.notStarted = Array(users[10..<15])
    await store.receive(.delegate(.finished(report)))
    await server.clock.advance(by: .seconds(60))
    await store.finish()
    #expect(server.calls.count == 10, "the second batch never started")
    #expect(Set(server.cancelled.elements) == Set(users[2..<10].map(\.userId)), "every request in flight was cancelled")
    await store.send(.view(.startTapped))  // ignored: an import runs once
  }

  @Test("An empty list finishes at once with an empty report; start and cancel are ignored when they do not apply")
  @MainActor
  func emptyAndIgnored() async {
    let server = FakeUserServer()
    let store = TestStore(initialState: UserImportFeature.State(users: []), reducer: server.feature)
    await store.send(.view(.cancelTapped))  // not importing: nothing
    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.allBatchesFinished)) { $0.phase = .finished }
    await store.receive(.delegate(.finished(UserImportFeature.Report(wasCancelled: false, elapsed: .zero))))
    await store.send(.view(.startTapped))
    await store.finish()
    #expect(store.state.progress.fractionDone == 1)
    #expect(server.calls.count == 0)
  }
}
