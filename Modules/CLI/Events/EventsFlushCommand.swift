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
      // An explicit flush sends every stored event now, whatever retry date an earlier failure set.
      let (status, reason) = try await context.withEvents { tracker in
        _ = await tracker.loadedStatus
        await tracker.flush()
        let delivery = await tracker.loadedStatus
        return (QueueStatus(delivery), delivery.lastFailure?.reason)
      }
      RecordedDeliveryFailure.record(status.pending == 0 ? nil : status.lastError, in: context.options.dataDirectory)
      try context.output.result(status, human: status.flushLine)
      guard status.pending == 0 else {
        // No answer (offline, refused, dropped) is the network's fault; an answer that refused the upload is the
        // server's.
        let kind: ExitStatus = reason == nil || reason == .transport || !status.isOnline ? .network : .server
        throw CommandFailure(
          kind,
          "\(status.pending) event\(status.pending == 1 ? "" : "s") could not be delivered now\(status.lastError.map { " (\($0.clause))" } ?? ""); "
            + "they stay stored for the next flush.",
          followsResult: true)
      }
    }
  }
}
