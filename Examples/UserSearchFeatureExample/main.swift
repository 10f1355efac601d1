/// Searching users by nickname as the user types, with the Features runtime: a `Store` runs
/// `UserSearchFeature.live(users:clock:)`, each keystroke is an action, and the search starts only once typing has
/// paused for 300 ms (the debounce), so typing "A", "An", "Ann" sends one request. The results arrive through
/// `store.states()`, as a screen would receive them. An embedded Sandbox stands in for Sendbird's Platform API.
import Domain
import ExampleSupport
import Features
import Foundation
import Logging
import NIOTransports
import Sandbox

let start = ContinuousClock.now
let sandbox = await startSandbox(SandboxConfiguration(logLevel: .warning))
let control = sandbox.control
let dataDirectory = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-user-search-example-\(UUID().uuidString)", isDirectory: true)

var failure: (any Error)?
do {
  // The composition root builds the user manager the feature searches with.
  let dependencies = Dependencies.live(
    configuration: KeelConfiguration(
      sendbirdBaseURL: sandbox.baseURL, dataDirectory: dataDirectory, logLevel: .warning, transport: NIOHTTPTransport())
  )
  let users = dependencies.users
  try users.initApplication(applicationId: "example-app", apiToken: "example-api-token")
  let created = try await users.createUsers(params: [
    UserCreationParams(userId: "ann-1", nickname: "Ann"), UserCreationParams(userId: "ann-2", nickname: "Ann"),
    UserCreationParams(userId: "anna", nickname: "Anna"),
  ])
  step("createUsers", created.map { "\($0.userId) (\($0.nickname ?? ""))" }.joined(separator: ", "))

  let store = Store(
    initialState: UserSearchFeature.State(),
    reducer: UserSearchFeature.live(users: users, clock: ContinuousClock()))
  let searchesBefore = try await control.statistics().requests("GET /v3/users")

  // Keystrokes 100 ms apart: faster than the debounce, so each one cancels the search the previous one scheduled.
  for query in ["A", "An", "Ann"] {
    store.send(.view(.queryChanged(query)))
    step("type \"\(query)\"", "query \"\(store.state.query)\", loading \(store.state.isLoading)")
    try await Task.sleep(for: .milliseconds(100))
  }
  let anns = await first(of: store.states(), within: .seconds(5)) { $0.query == "Ann" && !$0.isLoading }
  guard let anns else { throw ExampleFailure("The search for Ann did not finish within 5 seconds.") }
  let annSearches = try await control.statistics().requests("GET /v3/users") - searchesBefore
  step(
    "store.states()",
    "results for \"Ann\": \(anns.results.map(\.userId).joined(separator: ", ")) (an exact match: not anna), "
      + "after \(annSearches) request")
  try check(anns.errorMessage == nil, "The search for Ann failed: \(anns.errorMessage ?? "").")
  try check(Set(anns.results.map(\.userId)) == ["ann-1", "ann-2"], "The search for Ann found \(anns.results).")
  try check(annSearches == 1, "Typing Ann sent \(annSearches) searches; the debounce should leave one.")

  store.send(.view(.queryChanged("Zed")))
  let zeds = await first(of: store.states(), within: .seconds(5)) { $0.query == "Zed" && !$0.isLoading }
  guard let zeds else { throw ExampleFailure("The search for Zed did not finish within 5 seconds.") }
  step("type \"Zed\"", "\(zeds.results.count) results, error \(zeds.errorMessage ?? "none")")
  try check(zeds.results.isEmpty && zeds.errorMessage == nil, "The search for Zed answered \(zeds).")

  store.send(.view(.queryChanged("")))
  let cleared = store.state
  let searches = try await control.statistics().requests("GET /v3/users") - searchesBefore
  step("clear the query", "\(cleared.results.count) results, loading \(cleared.isLoading), \(searches) searches in all")
  try check(cleared.results.isEmpty && !cleared.isLoading, "Clearing the query left \(cleared).")
  try check(searches == 2, "\(searches) searches were sent; Ann and Zed should make two.")
} catch {
  failure = error
}

await sandbox.stop()
try? FileManager.default.removeItem(at: dataDirectory)
finish(failure, since: start)
