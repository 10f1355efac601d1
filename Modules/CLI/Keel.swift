import ArgumentParser

/// `keel`: Keel's command line.
@main
struct Keel: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keel",
    abstract: "Keel's command line: users, sessions, events and images, on a Sandbox or your servers.",
    discussion: """
      Without --base-url or --app-id, a command runs against a Sandbox started on 127.0.0.1 for it, which keeps \
      its users and sessions in --data-dir for the next command. Keel's own files (user cache, event queue, image \
      cache, tokens) stay there too.

      Exit codes:
      \(ExitStatus.table)
      """,
    subcommands: [
      DemoCommand.self, UsersCommand.self, AuthCommand.self, EventsCommand.self, ImagesCommand.self,
      SandboxCommand.self,
    ]
  )

  /// Runs the command the arguments name, with the global options accepted before the subcommand too.
  static func main() async {
    await main(GlobalOptionPlacement.placed(Array(CommandLine.arguments.dropFirst()), root: Keel.self))
  }
}
