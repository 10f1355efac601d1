import ArgumentParser
import Domain
import Foundation

/// `keel auth signup --email new@keel.dev --nickname New`: creates an account and signs in to it; the password comes
/// as `login`'s does.
struct AuthSignUpCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signup", abstract: "Create an account and sign in to it.",
    discussion: """
      The password (8 to 256 characters) comes from --password, else KEEL_PASSWORD, else a prompt that does not \
      echo it (or a line of standard input). An email that has an account: 70; input the server would refuse: 65, \
      before anything is sent.
      """)

  @Option(help: "The new account's email.")
  var email: String

  @Option(help: "The nickname (1 to 64 characters); the email's local part by default.")
  var nickname: String?

  @Option(help: "The password; else KEEL_PASSWORD, else a prompt (or a line of standard input).")
  var password: String?

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      try context.requireBackend(for: "sign up")
      let password =
        try password ?? ProcessInfo.processInfo.environment["KEEL_PASSWORD"] ?? AuthLoginCommand.readPassword()
      let user = try await context.dependencies.sessions.signUp(email: email, password: password, nickname: nickname)
      try context.output.result(SignedInUser(user), human: "Signed up and in as \(SignedInUser(user).line).")
    }
  }
}
