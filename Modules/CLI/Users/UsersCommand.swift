import ArgumentParser
import Domain

/// `keel users`: the user manager of a Sendbird application (or a Sandbox standing in for one).
struct UsersCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "users",
    abstract: "Create, import, get, update and search users, at most one request per second.",
    subcommands: [
      UsersCreateCommand.self, UsersImportCommand.self, UsersGetCommand.self, UsersUpdateCommand.self,
      UsersSearchCommand.self,
    ]
  )
}

extension User {
  /// `alice  Alice  https://…`: one line per user.
  var line: String {
    let name = nickname.flatMap { $0.isEmpty ? nil : $0 } ?? "(no nickname)"
    return [userId, name, profileURL ?? ""].filter { !$0.isEmpty }.joined(separator: "  ")
  }
}

/// A list of users, as `--json` prints it.
struct UserList: Encodable {
  let users: [User]
}
