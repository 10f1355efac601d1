import Clocks
import Domain
import Foundation
import Networking
import RateLimiting
import TestSupport
import Testing

/// REQUIREMENTS L1: one limiter per application for every user manager that shares a ``UserManagerLimiters``, calls
/// admitted in the order they were made, through the Sendbird facade. The CLI's `SharedLimitCommandTests` shows
/// processes on one store kept to the limit, as the Sandbox's journal sees it; call order and exact seconds need a
/// test clock, and the limiters' keys and sharing are pure logic.
@Suite("One limit per application (L1)", .timeLimit(.minutes(3)))
struct SharedLimitTests {
  private let clock = TestClock()
  private let baseURL = URL(string: "https://sendbird.test")!

  /// A facade over its own manager, both managers on `limiters` and `server`.
  private func facade(_ limiters: UserManagerLimiters, _ server: FakeSendbird, app: String = "app-1") throws
    -> SendbirdUserManager
  {
    let manager = UserManager(
      transport: server, limiters: limiters, store: UserStore(), baseURL: baseURL, retryPolicy: nil, clock: clock)
    try manager.initApplication(applicationId: app, apiToken: "token-\(app)")
    return SendbirdUserManager(manager: manager)
  }

  private func params(_ index: Int) -> UserCreationParams {
    UserCreationParams(userId: "u\(index)", nickname: "User \(index)", profileURL: nil)
  }

  @Test("Two facades of one application: 11 calls between them, one a second in all, and the 11th call refused")
  func twoManagersShareOneLimiter() async throws {
    // GIVEN two facades, each with a manager of its own, sharing the limiters
    let server = FakeSendbird(clock: clock)
    let limiters = UserManagerLimiters(clock: clock)
    let facades = [try facade(limiters, server), try facade(limiters, server)]
    let outcomes = Recorder<(index: Int, ok: Bool)>()

    // WHEN 11 calls alternate between them, made back to back
    for index in 0..<11 {
      facades[index % 2].createUser(params: params(index)) { result in
        outcomes.record((index, (try? result.get()) != nil))
      }
      // Each call is in before the next is made (the two facades have lines of their own): sent, queued or refused.
      let refusedSoFar = { outcomes.elements.filter { !$0.ok }.count }
      #expect(await eventually { server.sent.count + refusedSoFar() + limiters.queued(app: "app-1") > index })
    }

    // THEN the 11th call is the one refused, at once
    #expect(await eventually { outcomes.elements.contains { !$0.ok } })
    #expect(outcomes.elements.filter { !$0.ok }.map(\.index) == [10])
    // AND the ten go one a second, in call order, whichever facade made them
    for second in 1..<10 {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .seconds(1))
      #expect(await eventually { server.sent.count == second + 1 })
    }
    #expect(server.sent.map(\.milliseconds) == (0..<10).map { Int64($0) * 1_000 })
    #expect(server.sent.map { $0.body["user_id"] } == (0..<10).map { "u\($0)" })
  }

  @Test("Calls made back to back on one facade are admitted in call order, and the 11th call is the one refused")
  func callOrder() async throws {
    let server = FakeSendbird(clock: clock)
    let limiters = UserManagerLimiters(clock: clock)
    let facade = try facade(limiters, server)
    let refused = Recorder<Int>()
    for index in 0..<11 {
      facade.createUser(params: params(index)) { result in
        if case .failure(let error as UserManagerError) = result, error.requestFailure?.kind == .rateLimited {
          refused.record(index)
        }
      }
    }
    #expect(await eventually { refused.count == 1 })
    #expect(refused.elements == [10])
    for second in 1..<10 {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .seconds(1))
      #expect(await eventually { server.sent.count == second + 1 })
    }
    #expect(server.sent.map { $0.body["user_id"] } == (0..<10).map { "u\($0)" })
  }

  @Test("Different applications have limiters of their own; one application behind two tokens shares one")
  func keyedByApplication() throws {
    let limiters = UserManagerLimiters(clock: clock)
    let first = try SendbirdApplication(applicationId: "app-1", apiToken: "a", baseURL: baseURL)
    let sameOtherToken = try SendbirdApplication(applicationId: "app-1", apiToken: "b", baseURL: baseURL)
    let other = try SendbirdApplication(applicationId: "app-2", apiToken: "a", baseURL: baseURL)
    let otherHost = try SendbirdApplication(
      applicationId: "app-1", apiToken: "a", baseURL: URL(string: "https://elsewhere.test:8443")!)
    #expect(limiters.limiter(for: first) as AnyObject === limiters.limiter(for: sameOtherToken) as AnyObject)
    #expect(limiters.limiter(for: first) as AnyObject !== limiters.limiter(for: other) as AnyObject)
    #expect(limiters.limiter(for: first) as AnyObject !== limiters.limiter(for: otherHost) as AnyObject)
    #expect(first.rateLimitKey == "sendbird.test/app-1")
    #expect(otherHost.rateLimitKey == "elsewhere.test:8443/app-1")
    #expect(!first.rateLimitKey.contains("a/"), "no token in the key")
  }

  @Test("Every live composition of the process shares one set for a policy; a different policy gets its own")
  func liveCompositionsShare() {
    let one = Dependencies.live(configuration: KeelConfiguration())
    let two = Dependencies.live(configuration: KeelConfiguration())
    let slower = Dependencies.live(configuration: KeelConfiguration(usersRate: .perSecond(2)))
    #expect(one.users.limiters === two.users.limiters)
    #expect(one.users.limiters === UserManagerLimiters.shared())
    #expect(one.users.limiters !== slower.users.limiters)
  }

  @Test("Two sets on one store (two processes) share each application's limit: ten places, the 11th refused (L2)")
  func setsOnOneStoreShare() async throws {
    let store = InMemoryGCRAStore(clock: clock)
    let sets = [UserManagerLimiters(store: store, clock: clock), UserManagerLimiters(store: store, clock: clock)]
    let application = try SendbirdApplication(applicationId: "app-1", apiToken: "t", baseURL: baseURL)
    var places: [any RateLimitReservation] = []
    for index in 0..<10 { places.append(try await sets[index % 2].limiter(for: application).reserve(cost: 1)) }
    let refusal = await #expect(throws: RateLimitError.self) {
      try await sets[0].limiter(for: application).reserve(cost: 1)
    }
    #expect(refusal?.kind == .queueFull)
    #expect(store.theoreticalArrival(of: "users/sendbird.test/app-1") == 10_000_000)
    for place in places { place.cancel() }
  }

  @Test("A get the cache answers takes no place in line")
  func cachedGetTakesNoPlace() async throws {
    let server = FakeSendbird(clock: clock)
    let limiters = UserManagerLimiters(clock: clock)
    let facade = try facade(limiters, server)
    let created = Recorder<Bool>()
    facade.createUser(params: params(0)) { created.record((try? $0.get()) != nil) }
    #expect(await eventually { created.count == 1 })
    let answered = Recorder<String>()
    for _ in 0..<20 { facade.getUser(userId: "u0") { answered.record((try? $0.get())?.userId ?? "") } }
    #expect(await eventually { answered.count == 20 })
    #expect(answered.elements == Array(repeating: "u0", count: 20))
    #expect(server.sent.count == 1, "answered from the cache, with no request and no place taken")
  }
}

extension UserManagerLimiters {
  /// How many requests wait at `app`'s limiter on `sendbird.test`.
  fileprivate func queued(app: String) -> Int {
    guard
      let application = try? SendbirdApplication(
        applicationId: app, apiToken: "t", baseURL: URL(string: "https://sendbird.test")!),
      let limiter = limiter(for: application) as? LeakyBucket<TestClock<Duration>>
    else { return 0 }
    return limiter.queuedCount
  }
}
