import ArgumentParser
import Domain
import Foundation
import KeelBasics

/// `keel events flush`: delivers what the queue holds.
struct EventsFlushCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flush", abstract: "Deliver every stored event now; what cannot go yet stays stored.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      let status = try await context.withEvents { tracker in
        _ = await tracker.loadedStatus
        await tracker.flush()
        return QueueStatus(await tracker.loadedStatus)
      }
      try context.output.result(status, human: status.line)
      guard status.pending == 0 else {
        // Offline or unreachable is the network's fault; an answer that refused the upload is the server's.
        let kind: ExitStatus = status.lastError == nil || !status.isOnline ? .network : .server
        throw CommandFailure(
          kind,
          "\(status.pending) events could not be delivered now\(status.lastError.map { " (\($0.clause))" } ?? ""); "
            + "they stay stored for the next flush.",
          followsResult: true)
      }
    }
  }
}
