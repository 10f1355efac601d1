import ArgumentParser
import Domain

/// `keel users get alice`: one user, from the local cache when it has it.
struct UsersGetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get", abstract: "Show a user, from the local cache when it has it, else from the server.")

  @Argument(help: "The user's id.")
  var userId: String

  @OptionGroup var global: GlobalOptions
  @OptionGroup var limits: LimiterStoreOptions

  func run() async throws {
    try await global.run(limits: limits) { context in
      let user = try await context.users().getUser(userId: userId)
      try context.output.result(user, human: user.line)
    }
  }
}
