import ArgumentParser
import Domain

/// `keel users update alice --nickname Alicia`: changes a user's nickname or profile URL.
struct UsersUpdateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update", abstract: "Change a user's nickname, profile URL, or both.")

  @Argument(help: "The user's id.")
  var userId: String

  @Option(help: "The new nickname.")
  var nickname: String?

  @Option(help: "The new profile image URL.")
  var profileUrl: String?

  @OptionGroup var global: GlobalOptions
  @OptionGroup var limits: LimiterStoreOptions

  func validate() throws {
    guard nickname != nil || profileUrl != nil else {
      throw ValidationError("Give --nickname, --profile-url or both: an update must change something.")
    }
  }

  func run() async throws {
    try await global.run(limits: limits) { context in
      if let nickname, nickname.allSatisfy(\.isWhitespace) {
        throw CommandFailure(.invalidInput, "The new nickname is empty; give one. Nothing was sent.")
      }
      let params = UserUpdateParams(userId: userId, nickname: nickname, profileURL: profileUrl)
      let users = try context.users()
      let user = try await users.updateUser(params: params)
      try context.output.result(user, human: "Updated \(user.line)")
      try context.requireCacheWritten(users)
    }
  }
}
