import ArgumentParser
import Domain
import Foundation

/// `keel auth`: a session with the chat backend, kept in the data directory's encrypted token store.
struct AuthCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "auth",
    abstract: "Sign up, sign in, show who is signed in, sign out.",
    discussion: """
      The tokens stay in --data-dir, encrypted, between commands; the embedded Sandbox keeps its sessions there \
      too.
      """,
    subcommands: [AuthLoginCommand.self, AuthSignUpCommand.self, AuthWhoAmICommand.self, AuthLogoutCommand.self]
  )
}

/// A signed-in user, as `--json` prints it.
struct SignedInUser: Encodable {
  let id: String
  let email: String
  let nickname: String

  init(_ user: SessionUser) {
    id = user.id
    email = user.email
    nickname = user.nickname
  }

  var line: String { "\(nickname) <\(email)> (\(id))" }
}
