import ArgumentParser
import Domain
import Foundation

/// `keel auth whoami`: the signed-in user, as the server sees them.
struct AuthWhoAmICommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "whoami", abstract: "Show the signed-in user, as the server sees them.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      try context.requireBackend(for: "say who is signed in")
      guard context.dependencies.sessions.currentUser != nil else {
        throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
      }
      let user = try await context.dependencies.sessions.me()
      try context.output.result(SignedInUser(user), human: SignedInUser(user).line)
    }
  }
}
