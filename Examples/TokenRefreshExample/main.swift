/// Signing in with `SessionManager`, and what happens when the access token expires while ten calls are under way:
/// every call fails once with `E05`, exactly one refresh renews the token, and every call is sent again and
/// succeeds. Then signing out wipes the tokens, and a call without a session is refused before it is sent. An
/// embedded Sandbox stands in for the chat backend; its control plane expires the tokens on demand.
import Domain
import ExampleSupport
import Foundation
import Logging
import NIOTransports
import Networking
import Persistence
import Sandbox

let start = ContinuousClock.now
let sandbox = await startSandbox(SandboxConfiguration(logLevel: .warning))
let control = sandbox.control
let dataDirectory = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-token-refresh-example-\(UUID().uuidString)", isDirectory: true)

var failure: (any Error)?
do {
  // The composition root builds the session manager; its tokens go to an encrypted file in the data directory. The
  // call refused after sign-out at the end is logged at warning; this example checks it instead, so it logs errors
  // only.
  let dependencies = Dependencies.live(
    configuration: KeelConfiguration(
      backendBaseURL: sandbox.baseURL, dataDirectory: dataDirectory, logLevel: .error, transport: NIOHTTPTransport()))
  let sessions = dependencies.sessions
  let secureStore = dependencies.environment.secureStore

  let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
  step("login(demo@keel.dev)", "signed in as \(user.id) (\(user.nickname)), state \(name(of: sessions.state))")
  try check(sessions.state == .loggedIn(user), "After login the state is \(sessions.state), not loggedIn.")
  let stored = try secureStore.value(Credentials.self, forKey: SessionManager.storageKey)
  try check(stored?.user == user, "The secure store does not hold the new session's tokens.")

  let me = try await sessions.me()
  step("me()", "\(me.email), with the access token from the sign-in")
  try check(me == user, "me() answered \(me), not the signed-in \(user).")

  try await control.expireTokens()
  step("POST /_sandbox/expire-tokens", "the server now refuses every access token it handed out as expired (E05)")

  let clock = ContinuousClock()
  let callsStarted = clock.now
  let answers = try await withThrowingTaskGroup(of: SessionUser.self) { group in
    for _ in 1...10 { group.addTask { try await sessions.me() } }
    var answers: [SessionUser] = []
    for try await answer in group { answers.append(answer) }
    return answers
  }
  let stats = try await control.statistics()
  let expired = stats.responses("GET /v1/me", status: 401)
  step(
    "10 concurrent me()",
    "\(answers.filter { $0 == user }.count) of 10 answered \(user.id) in \(readable(callsStarted.duration(to: clock.now))); "
      + "\(expired) answered E05 first")
  try check(answers == Array(repeating: user, count: 10), "Not every concurrent call succeeded: \(answers).")
  try check(expired >= 1, "No call met the expired token, so the expiry was not exercised.")
  step("GET /_sandbox/stats", "logins \(stats.counter("logins")), refreshes \(stats.counter("refreshes"))")
  try check(
    stats.counter("refreshes") == 1,
    "The Sandbox saw \(stats.counter("refreshes")) refreshes; the ten calls should share one.")

  let renewed = try secureStore.value(Credentials.self, forKey: SessionManager.storageKey)
  step("secure store", "holds the renewed access token, and the same refresh token")
  try check(
    renewed?.accessToken != stored?.accessToken && renewed?.refreshToken == stored?.refreshToken,
    "The secure store does not hold the renewed access token.")

  try await sessions.logout()
  let wiped = try secureStore.data(forKey: SessionManager.storageKey) == nil
  step("logout()", "state \(name(of: sessions.state)), tokens \(wiped ? "wiped" : "still stored")")
  try check(
    sessions.state == .loggedOut && wiped, "After logout the state is \(sessions.state), tokens wiped: \(wiped).")

  let sentBefore = try await control.statistics().requests("GET /v1/me")
  do {
    _ = try await sessions.me()
    throw ExampleFailure("me() succeeded after logout; it should be refused.")
  } catch let error as SessionError {
    let sentAfter = try await control.statistics().requests("GET /v1/me")
    let reason = error.requestFailure.map { "\($0.kind)" } ?? "\(error.kind)"
    step("me() after logout", "refused as \(reason), \(sentAfter - sentBefore) requests sent")
    try check(reason == "sessionExpired", "me() after logout failed as \(reason), not sessionExpired.")
    try check(sentAfter == sentBefore, "me() after logout was sent to the server.")
  }
} catch {
  failure = error
}

await sandbox.stop()
try? FileManager.default.removeItem(at: dataDirectory)
finish(failure, since: start)

/// A session state in a word, with the user's id when someone is signed in.
func name(of state: SessionState) -> String {
  switch state {
  case .loggedOut: "loggedOut"
  case .loggedIn(let user): "loggedIn(\(user.id))"
  case .expired: "expired"
  }
}
