import Foundation
import KeelConcurrency
import Persistence
import TestSupport
import Testing

@testable import Domain

/// The session state as an `AsyncStream` for any number of observers.
/// `SessionManagerIntegrationTests` records the states a login, a logout and a revoked refresh token publish against
/// the Sandbox; observers that come late, leave or outlive the manager are in-process matters that need no server.
@Suite("SessionManager: state stream", .timeLimit(.minutes(3)))
struct SessionStateStreamTests {
  let backend = FakeAuthBackend()

  @Test("Every observer gets the current state first, then every change")
  func currentStateThenChanges() async throws {
    let sessions = makeSessionManager(backend)
    var first = sessions.states().makeAsyncIterator()
    var second = sessions.states().makeAsyncIterator()
    #expect(await first.next() == .loggedOut)
    #expect(await second.next() == .loggedOut)

    try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    var late = sessions.states().makeAsyncIterator()
    try await sessions.logout()

    #expect(await first.next() == .loggedIn(demoUser))
    #expect(await first.next() == .loggedOut)
    #expect(await second.next() == .loggedIn(demoUser))
    #expect(await second.next() == .loggedOut)
    #expect(await late.next() == .loggedIn(demoUser), "a late observer starts from the state when it subscribed")
    #expect(await late.next() == .loggedOut)
  }

  @Test("A manager made on a store with a session publishes loggedIn first")
  func restoredStateFirst() async throws {
    let store = InMemorySecureStore()
    try await makeSessionManager(backend, store: store).login(
      email: FakeAuthBackend.email, password: FakeAuthBackend.password)

    var states = makeSessionManager(backend, store: store).states().makeAsyncIterator()

    #expect(await states.next() == .loggedIn(demoUser))
  }

  @Test("An observer that stops listening is removed")
  func observerThatStopsIsRemoved() async throws {
    let sessions = makeSessionManager(backend)
    let seen = Recorder<SessionState>()
    let observer = Task {
      for await state in sessions.states() { seen.record(state) }
    }
    #expect(await eventually { seen.count == 1 && sessions.broadcast.subscriberCount == 1 })

    observer.cancel()

    #expect(await eventually { sessions.broadcast.subscriberCount == 0 })
    _ = sessions.states()  // a stream dropped unread
    #expect(await eventually { sessions.broadcast.subscriberCount == 0 })
  }

  @Test("Streams end when the manager goes away")
  func streamsEndWithTheManager() async throws {
    var sessions: SessionManager? = makeSessionManager(backend)
    var states = try #require(sessions).states().makeAsyncIterator()

    sessions = nil

    #expect(await states.next() == .loggedOut)
    #expect(await states.next() == nil)
  }
}
