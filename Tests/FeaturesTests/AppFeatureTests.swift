import Clocks
import Domain
import Features
import FeaturesTesting
import TestSupport
import Testing

/// AppFeature through an exhaustive TestStore: the three features composed, and the expiry path (REQUIREMENTS F1–F3).
/// `AppFeatureIntegrationTests` runs the live wiring against the Sandbox: sign-in, an import, a search, and expiry back
/// to login. The exhaustive check of every state change, in order, needs fake services and a test clock.
@Suite(.timeLimit(.minutes(3))) struct AppFeatureTests {
  @Test("Signed in, mid-import and mid-search, the session expires: both children reset, their work stops, login shows")
  @MainActor
  func expiryResetsSignedInChildren() async {
    // GIVEN an app whose session was restored at launch
    let demo = FakeSessions.demo
    let sessions = FakeSessions(initial: .loggedIn(demo))
    let server = FakeUserServer()
    let searches = Recorder<String>()
    let app = AppFeature(
      session: SessionFeature(client: sessions.client),
      search: UserSearchFeature(
        search: { query in
          searches.record(query)
          return []
        }, clock: server.clock),
      userImport: server.feature, signUp: SignUpFeature(client: sessions.client))
    let store = TestStore(initialState: AppFeature.State(), reducer: app)
    await store.send(.view(.task))
    await store.receive(.session(.view(.task)))
    await store.receive(.session(.internal(.sessionChanged(.loggedIn(demo))))) {
      $0.session.status = .signedIn(demo)
    }
    await store.receive(.session(.delegate(.signedIn(demo)))) { $0.search = UserSearchFeature.State() }
    #expect(store.state.screen == .home)

    // WHEN an import of 3 users has created one, and a search waits for its debounce
    let users = (0..<3).map { UserCreationParams(userId: "user-\($0)", nickname: "User \($0)") }
    await store.send(.view(.importTapped(users))) { $0.userImport = UserImportFeature.State(users: users) }
    await store.receive(.userImport(.view(.startTapped))) { $0.userImport?.phase = .importing }
    await store.receive(.userImport(.internal(.batchStarted(0..<3)))) { $0.userImport?.started = 3 }
    #expect(await server.clock.sleeperArrived())
    await server.clock.advance(by: .seconds(1))
    await store.receive(.userImport(.response(.created(index: 0, user: server.user(users[0]), elapsed: .seconds(1))))) {
      $0.userImport?.outcomes[0] = .created(server.user(users[0]))
      $0.userImport?.elapsed = .seconds(1)
      $0.userImport?.estimatedTimeLeft = .seconds(2)
    }
    await store.send(.search(.view(.queryChanged("ali")))) {
      $0.search?.query = "ali"
      $0.search?.isLoading = true
    }
    #expect(await server.clock.sleeperArrived())

    // AND the session expires
    sessions.publish(.expired)

    // THEN the sign-in form shows with the reason, the children are gone, and the import's report says what it did
    await store.receive(.session(.internal(.sessionChanged(.expired)))) {
      $0.session.status = .signedOut
      $0.session.errorMessage = SessionFeature.expiredMessage
    }
    var report = UserImportFeature.Report(wasCancelled: true, elapsed: .seconds(1))
    report.created = [server.user(users[0])]
    report.interrupted = [users[1]]
    report.notStarted = [users[2]]
    await store.receive(.session(.delegate(.sessionExpired))) {
      $0.search = nil
      $0.userImport = nil
      $0.lastImportReport = report
    }
    #expect(store.state.screen == .login)

    // AND nothing the children started comes back: no search after the debounce, no more users
    await server.clock.advance(by: .seconds(60))
    sessions.end()
    await store.finish()
    #expect(searches.elements.isEmpty)
    #expect(server.cancelled.elements == ["user-1"], "the request in flight was cancelled, and no other was sent")
    #expect(server.calls.count == 2)
  }

  @Test("Signing in shows home; a chosen user and a finished import are kept; signing out resets them")
  @MainActor
  func signInImportSignOut() async {
    let demo = FakeSessions.demo
    let sessions = FakeSessions()
    let server = FakeUserServer()
    let alice = User(userId: "alice", nickname: "Alice")
    let app = AppFeature(
      session: SessionFeature(client: sessions.client),
      search: UserSearchFeature(search: { _ in [alice] }, clock: server.clock), userImport: server.feature,
      signUp: SignUpFeature(client: sessions.client))
    let store = TestStore(
      initialState: AppFeature.State(session: SessionFeature.State(email: "demo@keel.dev", password: "pw")),
      reducer: app)

    await store.send(.view(.importTapped([])))  // nobody signed in: ignored
    await store.send(.session(.view(.loginTapped))) { $0.session.status = .signingIn }
    await store.receive(.session(.response(.loggedIn(demo)))) {
      $0.session.status = .signedIn(demo)
      $0.session.password = ""
    }
    await store.receive(.session(.delegate(.signedIn(demo)))) { $0.search = UserSearchFeature.State() }

    await store.send(.search(.view(.userTapped(alice))))
    await store.receive(.search(.delegate(.userSelected(alice)))) { $0.selectedUser = alice }

    let users = [UserCreationParams(userId: "user-0", nickname: "User 0")]
    await store.send(.view(.importTapped(users))) { $0.userImport = UserImportFeature.State(users: users) }
    await store.receive(.userImport(.view(.startTapped))) { $0.userImport?.phase = .importing }
    await store.receive(.userImport(.internal(.batchStarted(0..<1)))) { $0.userImport?.started = 1 }
    #expect(await server.clock.sleeperArrived())
    await server.clock.advance(by: .seconds(1))
    await store.receive(.userImport(.response(.created(index: 0, user: server.user(users[0]), elapsed: .seconds(1))))) {
      $0.userImport?.outcomes[0] = .created(server.user(users[0]))
      $0.userImport?.elapsed = .seconds(1)
    }
    await store.receive(.userImport(.internal(.allBatchesFinished))) { $0.userImport?.phase = .finished }
    var report = UserImportFeature.Report(wasCancelled: false, elapsed: .seconds(1))
    report.created = [server.user(users[0])]
    await store.receive(.userImport(.delegate(.finished(report)))) { $0.lastImportReport = report }
    await store.send(.view(.importDismissed)) { $0.userImport = nil }

    await store.send(.session(.view(.logoutTapped))) { $0.session.status = .signingOut }
    await store.receive(.session(.response(.loggedOut(warning: nil)))) { $0.session.status = .signedOut }
    await store.receive(.session(.delegate(.signedOut))) {
      $0.search = nil
      $0.selectedUser = nil
    }
    await store.finish()
    #expect(store.state.lastImportReport == report, "the last report outlives the session")
  }
}
