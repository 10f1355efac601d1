import Clocks
import Domain
import Features
import FeaturesTesting
import RateLimiting
import TestSupport
import Testing

/// UserImportFeature through an exhaustive TestStore on a TestClock (REQUIREMENTS F1–F3, U4, U8, D1).
/// `AppFeatureIntegrationTests` imports three users against the Sandbox through the live wiring; progress, time left,
/// cancel and stop at exact seconds need the test clock and a fake user manager.
@Suite(.timeLimit(.minutes(3))) struct UserImportFeatureTests {
  /// What the fake server's refusal of `user-3` becomes: not the user manager's error, so a failed request.
  static let exists = UserManagerError(.requestFailed, "user-3 exists already")

  @Test("12 users: two batches (10, then 2), one user at a time, progress and time left after each, a failure kept")
  @MainActor
  func importsInBatches() async {
    let users = (0..<12).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let server = FakeUserServer(refusing: ["user-3"])
    let store = TestStore(initialState: UserImportFeature.State(users: users), reducer: server.feature)

    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.batchStarted(0..<10))) { $0.started = 10 }
    for index in 0..<12 {
      if index == 10 { await store.receive(.internal(.batchStarted(10..<12))) { $0.started = 12 } }
      #expect(store.state.inFlight == index)
      #expect(await server.clock.sleeperArrived())
      await server.clock.advance(by: .seconds(1))  // the rate limiter's pace
      let elapsed = Duration.seconds(index + 1)
      let left = 11 - index
      if index == 3 {
        await store.receive(.response(.failed(index: 3, error: Self.exists, elapsed: elapsed))) {
          $0.outcomes[3] = .failed(Self.exists)
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
    report.failures = [UserCreationFailure(index: 3, params: users[3], error: Self.exists)]
    await store.receive(.delegate(.finished(report)))
    await store.finish()
    #expect(server.maxInFlight == 1, "one user at a time: never more than one request waits at the limiter")
    #expect(server.calls.count == 12)
  }

  @Test("Cancel mid-batch: the request in flight stops, nothing more is sent, the report splits what happened")
  @MainActor
  func cancels() async {
    let users = (0..<15).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let server = FakeUserServer()
    let store = TestStore(initialState: UserImportFeature.State(users: users), reducer: server.feature)
    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.batchStarted(0..<10))) { $0.started = 10 }
    for index in 0..<2 {
      #expect(await server.clock.sleeperArrived())
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
    report.interrupted = [users[2]]
    report.notStarted = Array(users[3..<15])
    await store.receive(.delegate(.finished(report)))
    await server.clock.advance(by: .seconds(60))
    await store.finish()
    #expect(server.calls.count == 3, "nothing sent after the cancel")
    #expect(server.cancelled.elements == ["user-2"], "the request in flight was cancelled")
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

  @Test("Stop waits for the user in flight, then sends nothing more: every user is done or was never sent")
  @MainActor
  func stops() async {
    let users = (0..<15).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let server = FakeUserServer()
    let store = TestStore(initialState: UserImportFeature.State(users: users), reducer: server.feature)
    await store.send(.view(.startTapped)) { $0.phase = .importing }
    await store.receive(.internal(.batchStarted(0..<10))) { $0.started = 10 }
    await store.send(.view(.stopTapped)) { $0.isStopping = true }
    #expect(await server.clock.sleeperArrived())
    await server.clock.advance(by: .seconds(1))
    await store.receive(.response(.created(index: 0, user: server.user(users[0]), elapsed: .seconds(1)))) {
      $0.outcomes[0] = .created(server.user(users[0]))
      $0.elapsed = .seconds(1)
      $0.phase = .stopped
    }
    var report = UserImportFeature.Report(wasCancelled: true, elapsed: .seconds(1))
    report.created = [server.user(users[0])]
    report.notStarted = Array(users[1...])
    await store.receive(.delegate(.finished(report)))
    await store.finish()
    #expect(server.calls.elements == ["user-0"], "the user in flight finished; no other was sent")
    #expect(server.cancelled.elements.isEmpty)
  }

  @Test("Cancelling once every user was tried is ignored: the import is finishing, not to be reported as cancelled")
  @MainActor
  func lateCancel() async {
    let users = [UserCreationParams(userId: "user-0", nickname: "User 0")]
    let server = FakeUserServer()
    var tried = UserImportFeature.State(users: users)
    tried.phase = .importing
    tried.started = 1
    tried.outcomes[0] = .created(server.user(users[0]))
    let store = TestStore(initialState: tried, reducer: server.feature)
    await store.send(.view(.cancelTapped))  // no change, no report: allBatchesFinished is on its way
    await store.finish()
  }

  @Test("20 users through the user manager's real limiter (1/s, 10 in line) on a TestClock, with a search meanwhile")
  @MainActor
  func realLimiter() async {
    // GIVEN the import and a search sharing LeakyBucket.userManager, as AppFeature.live wires them
    let clock = TestClock()
    let limiter = LeakyBucket.userManager(clock: clock)
    let users = (0..<20).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    let feature = UserImportFeature(
      create: { params in
        try await limiter.acquire(cost: 1)
        return User(userId: params.userId, nickname: params.nickname)
      }, clock: clock)
    let store = Store(initialState: UserImportFeature.State(users: users), reducer: feature)

    // WHEN it runs, one second at a time, and a search asks the limiter 5 s in
    store.send(.view(.startTapped))
    let searchAdmitted = Recorder<Bool>()
    for second in 0..<40 {
      if second == 5 {
        Task {
          do {
            try await limiter.acquire(cost: 1)
            searchAdmitted.record(true)
          } catch {
            searchAdmitted.record(false)
          }
        }
      }
      if store.state.phase != .importing && searchAdmitted.count == 1 { break }
      _ = await clock.sleeperArrived(maxChecks: 500)
      await clock.advance(by: .seconds(1))
    }

    // THEN every user was created, none refused by the limiter, and the search had its turn
    #expect(store.state.phase == .finished)
    #expect(store.state.report.created.count == 20)
    #expect(store.state.report.failures.isEmpty)
    #expect(searchAdmitted.elements == [true])
  }
}
