import Domain
import Features
import KeelConcurrency
import TestSupport

/// A session manager: signs in as the demo user unless a failure is queued; publishes only what the test says, so
/// that the order of the feature's actions is the test's. Its gates hold a sign-in's or sign-out's answer back.
final class FakeSessions: Sendable {
  /// The user every sign-in signs in.
  static let demo = SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: "demo")

  let logins = Recorder<(email: String, password: String)>()
  /// Errors the next sign-ins throw, first queued first.
  let failures = Recorder<SessionError>()
  /// An error sign-out throws after ending the session here.
  let logoutFailure = Recorder<SessionError>()
  /// Passed before a sign-in (with a password or a provider) answers.
  let loginGate = Gate()
  /// Passed before a sign-out answers.
  let logoutGate = Gate()
  /// What a sign-up was asked.
  struct SignUp: Equatable, Sendable {
    var email: String
    var password: String
    var nickname: String?
  }
  let signUps = Recorder<SignUp>()
  /// Passed before a sign-up answers.
  let signUpGate = Gate()
  /// Each sign-in with a provider, as `provider token nonce`.
  let providerSignIns = Recorder<String>()
  /// An error every sign-in with a provider throws, if set.
  let providerFailure = Locked<SessionError?>(nil)
  /// An error every sign-up throws, if set.
  let signUpFailure = Locked<SessionError?>(nil)
  private let initial: SessionState
  private let published = Recorder<SessionState>()
  private let stream: AsyncStream<SessionState>
  private let continuation: AsyncStream<SessionState>.Continuation

  init(initial: SessionState = .loggedOut) {
    self.initial = initial
    (stream, continuation) = AsyncStream.makeStream(of: SessionState.self)
    continuation.yield(initial)
  }

  /// Publishes `state`, as the session manager does.
  func publish(_ state: SessionState) {
    published.record(state)
    continuation.yield(state)
  }

  /// Publishes `stale`, then `state`, with `state` already the current one when `stale` is read: a value the
  /// manager replaced before its observer got to it.
  func publish(_ stale: SessionState, replacedBy state: SessionState) {
    published.record(stale)
    published.record(state)
    continuation.yield(stale)
    continuation.yield(state)
  }

  /// Ends the stream, so that the feature's following effect ends.
  func end() { continuation.finish() }

  var client: SessionClient {
    SessionClient(
      login: { [self] email, password in
        logins.record((email, password))
        await loginGate.pass()
        let failed = failures.elements.dropFirst(logins.count - 1).first
        if let failed { throw failed }
        return Self.demo
      },
      logout: { [self] in
        await logoutGate.pass()
        if let failure = logoutFailure.elements.first { throw failure }
      },
      states: { [stream] in stream },
      current: { [self] in published.elements.last ?? initial },
      signUp: { [self] email, password, nickname in
        signUps.record(SignUp(email: email, password: password, nickname: nickname))
        await signUpGate.pass()
        if let failure = signUpFailure.withLock({ $0 }) { throw failure }
        return SessionUser(id: "user-new", email: email, nickname: nickname ?? "new")
      },
      signInWithProvider: { [self] provider, token, nonce in
        providerSignIns.record("\(provider.rawValue) \(token) \(nonce ?? "-")")
        await loginGate.pass()
        if let failure = providerFailure.withLock({ $0 }) { throw failure }
        return Self.demo
      })
  }
}
