import Foundation
import Networking
import Testing

@testable import Domain

/// REQUIREMENTS U4, U7, U13: bad input is a typed validation error, and nothing is sent.
/// A refusal happens before anything is sent, so needs no server; `UserManagerIntegrationTests` shows the Sandbox,
/// whose limits are the same, taking the limits themselves (80-character ids, 2,048-character URLs, any letters).
@Suite struct UserValidationTests {
  private func expectValidation(
    _ field: String, _ harness: UsersHarness, _ call: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let error = await #expect(throws: UserManagerError.self, sourceLocation: sourceLocation) { try await call() }
    #expect(error?.kind == .validation, sourceLocation: sourceLocation)
    #expect(error?.field == field, sourceLocation: sourceLocation)
    #expect(harness.server.sent.isEmpty, "nothing is sent", sourceLocation: sourceLocation)
  }

  @Test("User ids of 0 or 81 characters, nicknames of 81 and profile URLs of 2049 are refused (U13)")
  func lengths() async throws {
    let harness = try UsersHarness.initialized()
    let manager = harness.manager
    await expectValidation("params.userId", harness) {
      _ = try await manager.createUser(params: UserCreationParams(userId: "", nickname: "N"))
    }
    await expectValidation("params.userId", harness) {
      _ = try await manager.createUser(
        params: UserCreationParams(userId: String(repeating: "é", count: 81), nickname: "N"))
    }
    await expectValidation("params.nickname", harness) {
      _ = try await manager.createUser(
        params: UserCreationParams(userId: "a", nickname: String(repeating: "n", count: 81)))
    }
    await expectValidation("params.profileURL", harness) {
      let url = "https://x.test/" + String(repeating: "p", count: 2049 - 15)
      _ = try await manager.createUser(params: UserCreationParams(userId: "a", nickname: "N", profileURL: url))
    }
    await expectValidation("userId", harness) {
      _ = try await manager.getUser(userId: String(repeating: "u", count: 81))
    }
  }

  @Test("The limits themselves are accepted: 80-character ids and nicknames, 2048-character URLs")
  func limitsAccepted() async throws {
    let harness = try UsersHarness.initialized()
    let url = "https://x.test/" + String(repeating: "p", count: 2048 - 15)
    let params = UserCreationParams(
      userId: String(repeating: "é", count: 80), nickname: String(repeating: "n", count: 80), profileURL: url)
    let user = try await harness.manager.createUser(params: params)
    #expect(user.userId == params.userId)
    #expect(harness.server.sent.count == 1)
  }

  @Test("createUsers with 11 users fails with a validation error and sends nothing (U4)")
  func elevenUsers() async throws {
    let harness = try UsersHarness.initialized()
    let params = (0..<11).map { UserCreationParams(userId: "u\($0)", nickname: "N") }
    await expectValidation("params", harness) { _ = try await harness.manager.createUsers(params: params) }
  }

  @Test("One bad input in a batch, or an id twice, fails the whole call before anything is sent")
  func badInputInBatch() async throws {
    let harness = try UsersHarness.initialized()
    var params = (0..<5).map { UserCreationParams(userId: "u\($0)", nickname: "N") }
    params[3].userId = ""
    await expectValidation("params[3].userId", harness) { _ = try await harness.manager.createUsers(params: params) }
    params[3].userId = "u1"
    await expectValidation("params[3].userId", harness) { _ = try await harness.manager.createUsers(params: params) }
  }

  @Test("An empty or blank nickname search fails and sends nothing (U7)", arguments: ["", " ", "\t\n"])
  func blankNickname(_ nickname: String) async throws {
    let harness = try UsersHarness.initialized()
    await expectValidation("nicknameMatches", harness) {
      _ = try await harness.manager.getUsers(nicknameMatches: nickname)
    }
  }

  @Test("An update that changes nothing is refused before sending")
  func emptyUpdate() async throws {
    let harness = try UsersHarness.initialized()
    await expectValidation("params", harness) {
      _ = try await harness.manager.updateUser(params: UserUpdateParams(userId: "alice"))
    }
  }

  @Test("Before initApplication every call fails as not initialized, and nothing is sent")
  func notInitialized() async throws {
    let harness = UsersHarness()
    let error = await #expect(throws: UserManagerError.self) {
      _ = try await harness.manager.createUser(params: UserCreationParams(userId: "a", nickname: "N"))
    }
    #expect(error?.kind == .notInitialized)
    #expect(harness.server.sent.isEmpty)
  }

  @Test("Application ids and tokens are checked: empty, spaces, or not a host name without a base URL")
  func applicationIds() throws {
    #expect(throws: UserManagerError.self) { try SendbirdApplication(applicationId: "", apiToken: "t") }
    #expect(throws: UserManagerError.self) { try SendbirdApplication(applicationId: "a b", apiToken: "t") }
    #expect(throws: UserManagerError.self) { try SendbirdApplication(applicationId: "app", apiToken: "") }
    #expect(throws: UserManagerError.self) { try SendbirdApplication(applicationId: "a.b/c", apiToken: "t") }
    let app = try SendbirdApplication(applicationId: "5A3F-99", apiToken: "secret")
    #expect(app.baseURL.absoluteString == "https://api-5A3F-99.sendbird.com")
    #expect(!app.description.contains("secret"))
  }

  @Test(
    "Control characters, line separators and bidirectional overrides are refused in every user field",
    arguments: [
      "\u{1B}]0;pwned\u{07}", "a\u{0}b", "two\nlines", "del\u{7F}", "c1\u{9B}2J", "rtl\u{202E}txt", "ls\u{2028}",
    ])
  func controlCharacters(_ text: String) async throws {
    let harness = try UsersHarness.initialized()
    let manager = harness.manager
    await expectValidation("params.userId", harness) {
      _ = try await manager.createUser(params: UserCreationParams(userId: "id\(text)", nickname: "N"))
    }
    await expectValidation("params.nickname", harness) {
      _ = try await manager.createUser(params: UserCreationParams(userId: "a", nickname: "N\(text)"))
    }
    await expectValidation("params.profileURL", harness) {
      _ = try await manager.createUser(
        params: UserCreationParams(userId: "a", nickname: "N", profileURL: "https://x.test/\(text)"))
    }
    await expectValidation("nicknameMatches", harness) { _ = try await manager.getUsers(nicknameMatches: "N\(text)") }
    #expect(throws: UserManagerError.self) { try SendbirdApplication(applicationId: "app", apiToken: "t\(text)") }
    let error = #expect(throws: UserManagerError.self) {
      try UserCreationParams(userId: "a", nickname: text).validate()
    }
    #expect(error?.description.contains("control characters") == true)
  }

  @Test("Ordinary text passes: accents, emoji, spaces and punctuation")
  func printableAccepted() async throws {
    let harness = try UsersHarness.initialized()
    let user = try await harness.manager.createUser(
      params: UserCreationParams(userId: "zoë-1", nickname: "Zoë 🚀 O'Brien, Jr.", profileURL: "https://x.test/a b"))
    #expect(user.nickname == "Zoë 🚀 O'Brien, Jr.")
  }
}
