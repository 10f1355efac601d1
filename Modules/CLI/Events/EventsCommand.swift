import ArgumentParser
import Domain
import Foundation
import KeelBasics

/// `keel events`: analytics events, stored on disk first and delivered once each, whatever happens.
struct EventsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "events",
    abstract: "Track events into the durable queue, deliver them, show the queue.",
    discussion: """
      A tracked event is on disk (--data-dir) before `track` returns, and stays there until the server has \
      acknowledged it. Only `flush` uploads; `track` and `status` never do.
      """,
    subcommands: [EventsTrackCommand.self, EventsFlushCommand.self, EventsStatusCommand.self]
  )
}

/// The event queue's state, as `--json` prints it.
struct QueueStatus: Encodable {
  let pending: Int
  let delivered: Int
  let duplicates: Int
  let deadLettered: Int
  let lastError: String?
  let isOnline: Bool

  init(_ status: DeliveryStatus) {
    pending = status.pending
    delivered = status.delivered
    duplicates = status.duplicates
    deadLettered = status.deadLettered
    lastError = status.lastError
    isOnline = status.isOnline
  }

  var line: String {
    var line = "\(pending) pending, \(delivered) delivered by this command"
    if deadLettered > 0 { line += ", \(deadLettered) refused by the server (set aside)" }
    if let lastError { line += "; last failure: \(lastError)" }
    return line
  }
}

extension CommandContext {
  /// The event tracker, opened on the data directory's queue; shut down after `body`.
  func withEvents<Result>(_ body: (EventTracker) async throws -> Result) async throws -> Result {
    try requireBackend(for: "Event delivery")
    let tracker = try dependencies.events
    do {
      let result = try await body(tracker)
      await tracker.shutDown()
      return result
    } catch {
      await tracker.shutDown()
      throw error
    }
  }
}
