import ArgumentParser

/// `keel`: Keel's command line. Its first command serves the Sandbox; `demo`, `users`, `auth`, `events` and
/// `images` follow with the CLI issue.
@main
struct Keel: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keel",
    abstract: "Keel's command line: a local Sandbox of every API Keel speaks, and more to come.",
    subcommands: [SandboxCommand.self]
  )
}
