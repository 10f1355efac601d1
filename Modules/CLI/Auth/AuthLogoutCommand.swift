import ArgumentParser
import Domain
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
      try context.requireBackend(for: "Signing out")
      let sessions = context.dependencies.sessions
      guard sessions.currentUser != nil else {
        try context.output.result(SignedOut(wasSignedIn: false, serverTold: false), human: "Nobody was signed in.")
        return
      }
      do {
        try await sessions.logout()
        try context.output.result(SignedOut(wasSignedIn: true, serverTold: true), human: "Signed out.")
      } catch let error as SessionError where error.kind == .revocationFailed {
        context.output.note("keel: \(error.description)")
        try context.output.result(
          SignedOut(wasSignedIn: true, serverTold: false), human: "Signed out here; the server was not told.")
      }
    }
  }
}
