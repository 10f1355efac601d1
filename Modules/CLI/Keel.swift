import ArgumentParser
import Domain
import Foundation

/// `keel`: Keel's command line.
@main
struct Keel: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keel",
    abstract: "Keel's command line: users, sessions, chat, events and images, on a Sandbox or your servers.",
    discussion: """
      Without --base-url or --app-id, a command runs against a Sandbox started on 127.0.0.1 for it, which keeps \
      its users and sessions in --data-dir for the next command. Keel's own files (user cache, event queue, image \
      cache, tokens) stay there too.

      Exit codes:
      \(ExitStatus.table)
      """,
    version: KeelVersion.current,
    subcommands: [
      DemoCommand.self, UsersCommand.self, AuthCommand.self, ProfileCommand.self, ChatCommand.self, EventsCommand.self,
      ImagesCommand.self, SocketIOCommand.self, SandboxCommand.self,
    ]
  )

  /// Runs the command the arguments name, with the global options accepted before the subcommand too. With
  /// `--json`, a usage error is a JSON error document on standard output as every other failure is.
  static func main() async {
    let arguments = GlobalOptionPlacement.placed(Array(CommandLine.arguments.dropFirst()), root: Keel.self)
    var command: any ParsableCommand
    do {
      command = try parseAsRoot(arguments)
    } catch {
      if arguments.contains("--json"), exitCode(for: error) == .validationFailure {
        Output(json: true).fail(CommandFailure(.usage, message(for: error)))
        Foundation.exit(ExitStatus.usage.rawValue)
      }
      exit(withError: error)
    }
    do {
      if var asynchronous = command as? any AsyncParsableCommand {
        try await asynchronous.run()
      } else {
        try command.run()
      }
    } catch {
      exit(withError: error)
    }
  }
}
