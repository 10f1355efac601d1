import Foundation

/// `keel-bench`: Keel side by side with a peer, in one run, with the ratio printed (> 1 means Keel is better).
@main
enum KeelBench {
  static func main() async {
    do {
      let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
      let comparisons =
        (RateLimiterBenchmarks.comparisons(quick: options.quick)
        + SharedLimiterBenchmarks.comparisons(quick: options.quick)
        + SandboxBenchmarks.comparisons(quick: options.quick)
        + NetworkingBenchmarks.comparisons(quick: options.quick)
        + WebSocketBenchmarks.comparisons(quick: options.quick)
        + RealtimeBenchmarks.comparisons(quick: options.quick)
        + PersistenceBenchmarks.comparisons(quick: options.quick)
        + DomainBenchmarks.comparisons(quick: options.quick)
        + StoreBenchmarks.comparisons(quick: options.quick)).filter { options.includes($0.name) }
      guard !comparisons.isEmpty else { throw BenchmarkError(description: "no row matches the filter") }
      if !ResultRow.judgesTargets {
        log("keel-bench: a debug build; its numbers are not representative. Use `swift run -c release keel-bench`.")
      }
      var rows: [ResultRow] = []
      for comparison in comparisons {
        log("running \(comparison.name)…")
        rows.append(try await comparison.run(quick: options.quick))
      }
      print(options.json ? "[\n" + rows.map { "  " + $0.json }.joined(separator: ",\n") + "\n]" : table(rows))
    } catch {
      log("keel-bench: \(error)")
      exit(1)
    }
  }

  /// Progress goes to standard error, so that standard output is only the report.
  static func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
