/// The command line: `keel-bench [--filter TEXT] [--quick] [--json]`.
struct BenchmarkOptions {
  /// Only rows whose name contains this text run.
  var filter: String?
  /// Fewer iterations and rounds: a smoke run, not a measurement to quote.
  var quick = false
  /// Print one JSON array instead of the table.
  var json = false

  static let usage = """
    usage: keel-bench [--filter TEXT] [--quick] [--json]
      --filter TEXT  run only the rows whose name contains TEXT (for example: rate)
      --quick        fewer iterations and rounds, for a smoke run
      --json         print one JSON array of {"name","unit","keel","peer","ratio","better"}
    """

  /// Parses `arguments` (without the program name).
  init(arguments: [String]) throws {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--quick": quick = true
      case "--json": json = true
      case "--filter":
        guard let value = remaining.popFirst() else { throw BenchmarkError(description: "--filter needs a value") }
        filter = value
      case "--help", "-h": throw BenchmarkError(description: Self.usage)
      default: throw BenchmarkError(description: "unknown argument '\(argument)'\n\(Self.usage)")
      }
    }
  }

  /// Whether the row called `name` runs.
  func includes(_ name: String) -> Bool {
    filter.map { name.contains($0) } ?? true
  }
}
