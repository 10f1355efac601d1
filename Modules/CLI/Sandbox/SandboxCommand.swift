import ArgumentParser

/// `keel sandbox`: the local server that speaks every API Keel talks to.
struct SandboxCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sandbox",
    abstract: "Run the Sandbox, a local server for every API Keel speaks.",
    subcommands: [ServeCommand.self]
  )
}
