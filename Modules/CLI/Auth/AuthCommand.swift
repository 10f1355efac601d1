import ArgumentParser
import Domain
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `keel auth`: a session with the chat backend, kept in the data directory's encrypted token store.
struct AuthCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "auth",
    abstract: "Sign in, show who is signed in, sign out.",
    discussion: """
      The tokens stay in --data-dir, encrypted, between commands; the embedded Sandbox keeps its sessions there \
      too.
      """,
    subcommands: [AuthLoginCommand.self, AuthWhoAmICommand.self, AuthLogoutCommand.self]
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

/// `keel auth login --email demo@keel.dev`: signs in; the password comes from --password, KEEL_PASSWORD or a prompt.
struct AuthLoginCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "login", abstract: "Sign in (the Sandbox's account is demo@keel.dev / demo-password).")

  @Option(help: "The email to sign in with.")
  var email: String

  @Option(help: "The password; else KEEL_PASSWORD, else a prompt (or a line of standard input).")
  var password: String?

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      try context.requireBackend(for: "Signing in")
      let password = try password ?? ProcessInfo.processInfo.environment["KEEL_PASSWORD"] ?? Self.readPassword()
      let user = try await context.dependencies.sessions.login(email: email, password: password)
      try context.output.result(SignedInUser(user), human: "Signed in as \(SignedInUser(user).line).")
    }
  }

  private static func readPassword() throws -> String {
    if isatty(STDIN_FILENO) != 0, let typed = getpass("Password: ") { return String(cString: typed) }
    guard let line = readLine(strippingNewline: true) else {
      throw CommandFailure(.invalidInput, "No password: pass --password, set KEEL_PASSWORD, or type it.")
    }
    return line
  }
}

/// `keel auth whoami`: the signed-in user, as the server sees them.
struct AuthWhoAmICommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "whoami", abstract: "Show the signed-in user, as the server sees them.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      try context.requireBackend(for: "whoami")
      guard context.dependencies.sessions.currentUser != nil else {
        throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
      }
      let user = try await context.dependencies.sessions.me()
      try context.output.result(SignedInUser(user), human: SignedInUser(user).line)
    }
  }
}

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
