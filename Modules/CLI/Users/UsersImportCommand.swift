import ArgumentParser
import Domain
import Features
import Foundation
import KeelErrors

/// `keel users import users.csv`: creates every user of a file through `UserImportFeature`, with progress.
struct UsersImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Create every user of a CSV or JSON file, one request per second, with progress.",
    discussion: """
      CSV has the header user_id,nickname,profile_url (profile_url optional); JSON is an array of objects with \
      those keys. Every row is checked before the first is sent; bad rows are listed with their line numbers \
      (exit 65). Users that fail are listed at the end (exit 1). Ctrl-C stops once the request in flight has \
      finished; a second Ctrl-C cancels that request too (exit 130). FILE - reads standard input.
      """
  )

  @Argument(help: "The CSV or JSON file.")
  var file: String

  @OptionGroup var global: GlobalOptions
  @OptionGroup var limits: LimiterStoreOptions

  func run() async throws {
    try await global.run(limits: limits) { context in
      let rows = try UserRows.read(file)
      let users = try context.users()
      let output = context.output
      output.note("Importing \(counted(rows.rows.count, "user")) from \(file) at one request per second…")
      let outcome = await ImportRunner.run(rows.rows.map(\.params), with: users)
      try Self.summarize(outcome, rows: rows, output: output)
    }
  }

  private static func summarize(_ outcome: ImportRunner.Outcome, rows: UserImportFile, output: Output) throws {
    let report = outcome.report
    let total = rows.rows.count
    let failures = report.failures.map { failure in
      ImportSummary.Failure(
        place: rows.rows[failure.index].place, userId: failure.params.userId, reason: failure.error.description.clause)
    }
    let summary = ImportSummary(
      created: report.created, failed: failures, interrupted: report.interrupted.map(\.userId),
      notSent: report.notStarted.map(\.userId), stopped: report.wasCancelled,
      elapsedSeconds: report.elapsed.inSeconds)
    var lines = [
      "Created \(report.created.count) of \(counted(total, "user")) in \(ProgressLine.elapsed(report.elapsed))."
    ]
    if !failures.isEmpty {
      lines.append("\(failures.count) failed:")
      lines += failures.map { "  \($0.place) (\($0.userId)): \($0.reason)" }
    }
    if !report.interrupted.isEmpty {
      lines.append("In flight when cancelled, may or may not exist: \(summary.interrupted.joined(separator: ", ")).")
    }
    if !report.notStarted.isEmpty { lines.append("Not sent: \(counted(report.notStarted.count, "user")).") }
    try output.result(summary, human: lines.joined(separator: "\n"))
    if report.wasCancelled {
      throw CommandFailure(
        outcome.interrupted ? .interrupted : .failure,
        "Stopped: \(report.created.count) of \(counted(total, "user")) created, \(report.notStarted.count) not sent.",
        followsResult: true)
    }
    if !failures.isEmpty {
      throw CommandFailure(
        .failure,
        "\(failures.count) of \(counted(total, "user")) \(failures.count == 1 ? "was" : "were") not created (see the summary).",
        followsResult: true)
    }
  }
}

/// What `keel users import --json` prints.
struct ImportSummary: Encodable {
  /// A user that was not created.
  struct Failure: Encodable {
    /// Where it is in the file: `line 3`, or `entry 3` in JSON.
    let place: String
    let userId: String
    let reason: String

    enum CodingKeys: String, CodingKey {
      case place
      case userId = "user_id"
      case reason
    }
  }

  let created: [User]
  let failed: [Failure]
  let interrupted: [String]
  let notSent: [String]
  let stopped: Bool
  let elapsedSeconds: Double

  enum CodingKeys: String, CodingKey {
    case created, failed, interrupted, stopped
    case notSent = "not_sent"
    case elapsedSeconds = "elapsed_seconds"
  }
}
