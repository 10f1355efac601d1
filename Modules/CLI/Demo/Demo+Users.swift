import Domain
import Features
import Foundation
import KeelErrors
import Sandbox

extension Demo {
  /// Creates the demo's users through `UserImportFeature`, with a progress bar, and checks the pace.
  func createUsers() async throws -> String {
    let manager = try users()
    let before = try await control.statistics().responses("POST /v3/users", status: 200)
    let started = ContinuousClock.now
    let outcome = await ImportRunner.run(demoUsers, with: manager)
    if outcome.interrupted { throw Interrupted() }
    let report = outcome.report
    let elapsed = started.duration(to: .now)
    let sent = try await control.statistics().responses("POST /v3/users", status: 200) - before
    try expect(report.failures.isEmpty, "\(report.failures.count) users failed: \(report.failures.first!.error)")
    try expect(report.created.count == size.users, "\(report.created.count) of \(size.users) users were created")
    try expect(sent == size.users, "the Sandbox created \(sent) users, not \(size.users)")
    let least = Duration.seconds(size.users - 1) * 0.95
    try expect(elapsed >= least, "\(size.users) requests took \(elapsed): faster than one per second")
    return "\(size.users) created, one request per second; the Sandbox saw \(sent) POST /v3/users"
  }

  /// Sends 11 users in one `createUsers` call: refused by validation, with nothing sent.
  func refuseElevenUsers() async throws -> String {
    let manager = try users()
    let before = try await control.statistics().responses("POST /v3/users", status: 200)
    let eleven = (1...11).map { UserCreationParams(userId: "batch-\(run)-\($0)", nickname: "Batch \($0)") }
    do {
      _ = try await manager.createUsers(params: eleven)
      throw Wrong("a batch of 11 was accepted")
    } catch let error as UserManagerError where error.kind == .validation {
      let after = try await control.statistics().responses("POST /v3/users", status: 200)
      try expect(after == before, "\(after - before) requests were sent")
      return "refused (\(error.description.clause)); nothing sent"
    }
  }

  /// Finds one of the demo's users by nickname, on the server.
  func search() async throws -> String {
    let nickname = "Demo User \(size.users) (\(run))"
    let found = try await users().getUsers(nicknameMatches: nickname)
    let expected = "demo-\(run)-\(size.users)"
    try expect(found.map(\.userId) == [expected], "found \(found.map(\.userId)) for \(nickname)")
    return "\"\(nickname)\" is \(expected)"
  }
}
