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
  /// `alice  Alice  https://…`: one line per user, whatever its fields hold (control characters and line breaks
  /// from the server are escaped).
  var line: String {
    let name = nickname.flatMap { $0.isEmpty ? nil : $0 } ?? "(no nickname)"
    return [userId, name, profileURL ?? ""].filter { !$0.isEmpty }.map { Output.printable($0) }
      .joined(separator: "  ")
  }
}

/// A list of users, as `--json` prints it.
struct UserList: Encodable {
  let users: [User]
}
