import ArgumentParser

/// Where the global options may stand: `keel --data-dir X users get a` reads as `keel users get --data-dir X a`, so
/// the options a user puts before the subcommand go right after it, where the subcommand reads them.
enum GlobalOptionPlacement {
  /// The global options that take a value (`--data-dir X` or `--data-dir=X`).
  static let valued: Set<String> = ["--base-url", "--app-id", "--api-token", "--data-dir", "--log-level"]
  /// The global flags.
  static let flags: Set<String> = ["--json"]

  /// `arguments` (without the program's name) with the global options found before the subcommand moved to just
  /// after its name; unchanged when there are none there.
  static func placed(_ arguments: [String], root: any ParsableCommand.Type) -> [String] {
    var leading: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      let name = String(argument.prefix { $0 != "=" })
      if flags.contains(argument) {
        leading.append(argument)
        index += 1
      } else if valued.contains(name) {
        let end = argument.contains("=") ? index + 1 : min(index + 2, arguments.endIndex)
        leading += arguments[index..<end]
        index = end
      } else {
        break
      }
    }
    guard !leading.isEmpty else { return arguments }
    var rest = Array(arguments[index...])
    var command = root
    var depth = 0
    while depth < rest.count,
      let next = command.configuration.subcommands.first(where: { name(of: $0) == rest[depth] })
    {
      command = next
      depth += 1
    }
    rest.insert(contentsOf: leading, at: depth)
    return rest
  }

  private static func name(of command: any ParsableCommand.Type) -> String {
    command.configuration.commandName ?? command._commandName
  }
}
