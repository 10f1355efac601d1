import ArgumentParser
import Chat
import Domain
import Foundation

/// `keel auth logout`: ends the session here, then on the server.
struct AuthLogoutCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "logout", abstract: "Sign out: forget the tokens here, then revoke them on the server.")

  @OptionGroup var global: GlobalOptions

  private struct SignedOut: Encodable {
    /// Whether someone was signed in.
    let wasSignedIn: Bool
    /// Whether the server revoked the session (`false` when nobody was signed in).
    let serverTold: Bool
  }

  func run() async throws {
    try await global.run { context in
      try context.requireBackend(for: "sign out")
      let sessions = context.dependencies.sessions
      guard sessions.currentUser != nil else {
        try context.output.result(SignedOut(wasSignedIn: false, serverTold: false), human: "Nobody was signed in.")
        return
      }
      var serverTold = true
      do {
        try await sessions.logout()
      } catch let error as SessionError where error.kind == .revocationFailed {
        context.output.note("keel: \(error.description)")
        serverTold = false
      }
      // The chat kept here was the account's: what the server gave goes now, not at the next chat command.
      if let chat = try? context.dependencies.chat {
        await chat.forgetSignedOutAccounts()
        await context.dependencies.shutDown()
      }
      try context.output.result(
        SignedOut(wasSignedIn: true, serverTold: serverTold),
        human: serverTold ? "Signed out." : "Signed out here; the server was not told.")
    }
  }
}
