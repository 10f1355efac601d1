import ArgumentParser
import Domain
import Foundation

/// `keel events requeue [--id N]...`: puts dead letters back into delivery.
struct EventsRequeueCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "requeue",
    abstract: "Put events the server refused back in the queue (all, or those --id names); `flush` delivers them.")

  @Option(name: .customLong("id"), help: "A dead letter's id, as `status --dead-letters` shows it (repeatable).")
  var ids: [Int64] = []

  @OptionGroup var global: GlobalOptions

  private struct Requeued: Encodable {
    let requeued: Int
    let pending: Int
  }

  func validate() throws {
    if let id = ids.first(where: { $0 < 1 }) { throw ValidationError("\(id) is not a dead letter's id.") }
  }

  func run() async throws {
    try await global.run(sends: false) { context in
      let result = try await context.withEvents { tracker in
        let moved = try await tracker.requeueDeadLetters(ids.isEmpty ? nil : ids)
        return Requeued(requeued: moved, pending: await tracker.loadedStatus.pending)
      }
      try context.output.result(
        result,
        human:
          "\(result.requeued) event\(result.requeued == 1 ? "" : "s") back in the queue; \(result.pending) pending. "
          + "`keel events flush` delivers them.")
    }
  }
}
