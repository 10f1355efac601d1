import ArgumentParser
import Domain
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
      try context.requireBackend(for: "sign in")
      let password = try password ?? ProcessInfo.processInfo.environment["KEEL_PASSWORD"] ?? Self.readPassword()
      let user = try await context.dependencies.sessions.login(email: email, password: password)
      try context.output.result(SignedInUser(user), human: "Signed in as \(SignedInUser(user).line).")
    }
  }

  /// The password from standard input: typed at a prompt that does not echo it, or a line when input is not a
  /// terminal.
  static func readPassword() throws -> String {
    let noPassword = CommandFailure(.invalidInput, "No password: pass --password, set KEEL_PASSWORD, or type it.")
    guard isatty(STDIN_FILENO) != 0 else {
      guard let line = readLine(strippingNewline: true) else { throw noPassword }
      return line
    }
    do {
      return try PasswordPrompt.typed(after: "Password: ")
    } catch .interrupted {
      throw CommandFailure(.interrupted, "Stopped at the password prompt; nothing was sent.")
    } catch .endOfInput {
      throw noPassword
    }
  }
}
