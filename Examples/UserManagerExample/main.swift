/// Creating, updating and finding the users of a Sendbird application, twice: through the Sendbird-compatible
/// facade, `SendbirdUserManager`, whose calls answer through completion handlers, and through the async
/// `UserManager` underneath it. Both share one cache and one rate limiter of one request per second, so this takes
/// about ten seconds. An embedded Sandbox stands in for Sendbird's Platform API.
import Domain
import ExampleSupport
import Foundation
import Logging
import NIOTransports
import Sandbox

let start = ContinuousClock.now
let sandbox = await startSandbox(SandboxConfiguration(logLevel: .warning))
let control = sandbox.control
let dataDirectory = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-user-manager-example-\(UUID().uuidString)", isDirectory: true)

var failure: (any Error)?
do {
  // The composition root builds every service from one configuration; the user cache goes in the data directory,
  // and requests go over SwiftNIO (the NIOTransports product: Linux's URLSession is libcurl's, and slower).
  let dependencies = Dependencies.live(
    configuration: KeelConfiguration(
      sendbirdBaseURL: sandbox.baseURL, dataDirectory: dataDirectory, logLevel: .warning,
      transport: NIOHTTPTransport()))
  let facade = SendbirdUserManager(manager: dependencies.users, logger: dependencies.logger)

  print("The Sendbird-compatible facade, with completion handlers:")
  facade.initApplication(applicationId: "example-app", apiToken: "example-api-token")
  step("initApplication(applicationId: example-app)", facade.manager.application?.description ?? "none")
  try check(facade.manager.application?.applicationId == "example-app", "initApplication did not take the application.")

  let alice = try await completion { done in
    facade.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"), completionHandler: done)
  }.get()
  step("createUser(alice)", "\(alice.userId), nickname \(alice.nickname ?? "none")")
  try check(alice.userId == "alice" && alice.nickname == "Alice", "createUser answered \(alice), not alice/Alice.")

  // A batch is created one user per second, through the same rate limiter, and answered in input order.
  let team = ["bob", "carol", "dave"].map { UserCreationParams(userId: $0, nickname: $0.capitalized) }
  let created = try await completion { done in facade.createUsers(params: team, completionHandler: done) }.get()
  step("createUsers(bob, carol, dave)", created.map(\.userId).joined(separator: ", ") + ", one per second")
  try check(
    created.map(\.userId) == ["bob", "carol", "dave"], "createUsers answered \(created), not bob, carol, dave.")

  // At most 10 users per batch: the eleventh makes the whole call invalid, and nothing is sent.
  let eleven = (1...11).map { UserCreationParams(userId: "crowd-\($0)", nickname: "Crowd") }
  let sentBefore = try await control.statistics().requests("POST /v3/users")
  let refused = await completion { done in facade.createUsers(params: eleven, completionHandler: done) }
  let sentAfter = try await control.statistics().requests("POST /v3/users")
  guard case .failure(let error as UserManagerError) = refused else {
    throw ExampleFailure("A batch of 11 users was not refused as invalid: \(refused).")
  }
  step("createUsers(11 users)", "refused (\(error.kind)): \(error.description)")
  try check(error.kind == .validation, "The batch of 11 was refused as \(error.kind), not as invalid input.")
  try check(sentAfter == sentBefore, "The batch of 11 sent \(sentAfter - sentBefore) requests; it should send none.")

  let bob = try await completion { done in
    facade.updateUser(params: UserUpdateParams(userId: "bob", nickname: "Robert"), completionHandler: done)
  }.get()
  step("updateUser(bob, nickname: Robert)", "\(bob.userId), nickname \(bob.nickname ?? "none")")
  try check(bob.nickname == "Robert", "updateUser answered nickname \(bob.nickname ?? "none"), not Robert.")

  // The update was cached, so reading the user back asks the server nothing.
  let cached = try await completion { done in facade.getUser(userId: "bob", completionHandler: done) }.get()
  let lookups = try await control.statistics().requests("GET /v3/users/:user_id")
  step("getUser(bob)", "\(cached.nickname ?? "none"), from the cache (\(lookups) requests to the server)")
  try check(cached == bob, "getUser answered \(cached), not the updated \(bob).")
  try check(lookups == 0, "getUser asked the server although bob was cached.")

  // An exact nickname match, answered by the server and cached.
  let alices = try await completion { done in
    facade.getUsers(nicknameMatches: "Alice", completionHandler: done)
  }.get()
  step("getUsers(nicknameMatches: Alice)", alices.map(\.userId).joined(separator: ", "))
  try check(alices.map(\.userId) == ["alice"], "The search for Alice found \(alices), not just alice.")

  // The same steps with async/await, on the manager underneath the facade: the same cache, the same rate limiter.
  print("The async UserManager underneath, with async/await:")
  let users = facade.manager

  let erin = try await users.createUser(params: UserCreationParams(userId: "erin", nickname: "Erin"))
  step("createUser(erin)", "\(erin.userId), nickname \(erin.nickname ?? "none")")
  try check(erin.userId == "erin" && erin.nickname == "Erin", "createUser returned \(erin), not erin/Erin.")

  let pair = try await users.createUsers(params: [
    UserCreationParams(userId: "frank", nickname: "Sam"), UserCreationParams(userId: "grace", nickname: "Sam"),
  ])
  step("createUsers(frank, grace)", pair.map(\.userId).joined(separator: ", "))
  try check(pair.map(\.userId) == ["frank", "grace"], "createUsers returned \(pair), not frank, grace.")

  let sentBeforeAsync = try await control.statistics().requests("POST /v3/users")
  do {
    _ = try await users.createUsers(params: eleven)
    throw ExampleFailure("A batch of 11 users was created; it should have been refused.")
  } catch let error as UserManagerError {
    step("createUsers(11 users)", "throws \(error.kind) for `\(error.field ?? "")`, nothing sent")
    try check(error.kind == .validation, "The batch of 11 was refused as \(error.kind), not as invalid input.")
  }
  let sentAfterAsync = try await control.statistics().requests("POST /v3/users")
  try check(sentAfterAsync == sentBeforeAsync, "The batch of 11 sent requests; it should send none.")

  let renamed = try await users.updateUser(params: UserUpdateParams(userId: "erin", nickname: "Sam"))
  step("updateUser(erin, nickname: Sam)", "\(renamed.userId), nickname \(renamed.nickname ?? "none")")
  try check(renamed.nickname == "Sam", "updateUser returned nickname \(renamed.nickname ?? "none"), not Sam.")

  let erinAgain = try await users.getUser(userId: "erin")
  let lookupsAfter = try await control.statistics().requests("GET /v3/users/:user_id")
  step("getUser(erin)", "\(erinAgain.nickname ?? "none"), from the cache (\(lookupsAfter) requests to the server)")
  try check(erinAgain == renamed && lookupsAfter == 0, "getUser did not answer the updated erin from the cache.")

  let sams = try await users.getUsers(nicknameMatches: "Sam")
  step("getUsers(nicknameMatches: Sam)", sams.map(\.userId).joined(separator: ", "))
  try check(Set(sams.map(\.userId)) == ["erin", "frank", "grace"], "The search for Sam found \(sams).")
  try check(users.store.user(id: "grace") != nil, "The users found were not cached.")
} catch {
  failure = error
}

await sandbox.stop()
try? FileManager.default.removeItem(at: dataDirectory)
finish(failure, since: start)
