import ArgumentParser
import Domain

/// `keel users search Alice`: the users whose nickname is exactly the one given.
struct UsersSearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: "Find the users whose nickname is exactly NICKNAME (at most 100).")

  @Argument(help: "The nickname to find.")
  var nickname: String

  @OptionGroup var global: GlobalOptions
  @OptionGroup var limits: LimiterStoreOptions

  func run() async throws {
    try await global.run(limits: limits) { context in
      let users = try await context.users().getUsers(nicknameMatches: nickname)
      try context.output.result(
        UserList(users: users),
        human: users.isEmpty ? "No user is called \(nickname)." : users.map(\.line).joined(separator: "\n"))
    }
  }
}
