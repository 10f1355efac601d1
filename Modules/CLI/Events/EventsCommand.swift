import ArgumentParser
import Domain
import Foundation
import KeelErrors
import KeelFiles

/// `keel events`: analytics events, stored on disk first and delivered once each, whatever happens.
struct EventsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "events",
    abstract: "Track events into the durable queue, deliver them, show the queue.",
    discussion: """
      A tracked event is on disk (--data-dir) before `track` returns, and stays there until the server has \
      acknowledged it. Only `flush` uploads; `track` and `status` never do.
      """,
    subcommands: [
      EventsTrackCommand.self, EventsFlushCommand.self, EventsStatusCommand.self, EventsRequeueCommand.self,
    ]
  )
}

/// The event queue's state, as `--json` prints it.
struct QueueStatus: Encodable {
  let pending: Int
  /// Delivered by this command (always 0 for `status`, which delivers nothing).
  var delivered: Int
  /// Set aside by this command (`flush` only): events the server refused on their own.
  var setAside: Int?
  /// Of those, the events that found the set-aside store full and were lost (`flush` only).
  var notKept: Int?
  /// Why they were set aside, the most frequent reason first (`flush` only).
  var setAsideReasons: [SetAsideReason]?
  /// The dead letters (`status --dead-letters` only).
  var deadLetters: [DeadLetterLine]?
  let duplicates: Int
  let deadLettered: Int
  /// Refused events that found the set-aside store full and were lost, ever.
  let deadLettersDropped: Int
  /// The most events the set-aside store keeps.
  let deadLetterCapacity: Int
  /// The last failure to deliver, in words: this command's, or else the one an earlier `flush` left on record.
  let lastError: String?
  let isOnline: Bool

  init(_ status: DeliveryStatus, capacity: Int, recordedFailure: String? = nil) {
    pending = status.pending
    delivered = status.delivered
    duplicates = status.duplicates
    deadLettered = status.deadLettered
    deadLettersDropped = status.deadLettersDropped
    deadLetterCapacity = capacity
    lastError = status.lastFailure.map(Self.words) ?? status.lastError ?? recordedFailure
    isOnline = status.isOnline
  }

  /// The line `status` prints: what waits, and why it did not go.
  var statusLine: String {
    var line = "\(pending) pending"
    if deadLettered > 0 { line += ", \(deadLettered) refused by the server (set aside)" }
    if deadLettersDropped > 0 { line += ", \(deadLettersDropped) refused and lost (the set-aside store was full)" }
    if let lastError { line += "; last failure: \(lastError)" }
    return line
  }

  /// Whether the set-aside store is full: the next event the server refuses will be lost.
  var isSetAsideStoreFull: Bool { deadLettered >= deadLetterCapacity }

  /// What to say of a full set-aside store, and of the refused events it could not keep (`lost`).
  func fullStoreSentence(lost: Int) -> String {
    (lost > 0
      ? "\(lost) event\(lost == 1 ? "" : "s") the server refused could not be set aside and \(lost == 1 ? "is" : "are") lost: "
      : "The next event the server refuses will be lost: ")
      + "the set-aside store keeps at most \(deadLetterCapacity.formatted(.number.grouping(.automatic))) events, "
      + "and holds \(deadLettered.formatted(.number.grouping(.automatic))). `keel events status --dead-letters` lists "
      + "them, `keel events requeue` puts them back once the server takes them."
  }

  /// The line `flush` prints: what it delivered, set aside and what still waits.
  var flushLine: String {
    var line = "\(delivered) delivered, \(pending) pending"
    if let setAside, setAside > 0 {
      line += ", \(setAside) refused by the server and set aside now"
      if let notKept, notKept > 0 { line += " (\(notKept) of them lost: the set-aside store is full)" }
    }
    if deadLettered > 0 { line += "; \(deadLettered) set aside in all" }
    return line
  }

  /// A failed upload in the CLI's words: the transport's reason spelled out, the server's answer with its code.
  static func words(_ failure: RequestFailure) -> String {
    switch failure.kind {
    case .transport: "the server could not be reached: \(CommandFailure.transportReason(failure))"
    case .server:
      "the server answered HTTP \(failure.statusCode.map(String.init) ?? "?")"
        + (failure.serverCode.map { ", code \($0)" } ?? "") + (failure.serverMessage.map { ": \($0.clause)" } ?? "")
    default: failure.description.clause
    }
  }
}

/// One dead letter as `status --dead-letters` shows it.
struct DeadLetterLine: Encodable {
  let id: Int64
  let name: String?
  let eventId: String?
  let reason: String
  let setAsideAt: String

  init(_ event: SetAsideEvent) {
    id = event.id
    name = event.event?.name
    eventId = event.event?.eventId.uuidString.lowercased()
    reason = event.reason
    setAsideAt = event.setAsideAt.formatted(Date.ISO8601FormatStyle())
  }

  /// `#12 checkout (6f1c…) at 2026-11-26T06:43:23Z: HTTP 400: …`.
  var line: String {
    "#\(id) \(name ?? "(unreadable)")\(eventId.map { " (\($0))" } ?? "") at \(setAsideAt): \(reason)"
  }
}

/// The last delivery failure a `flush` left, kept beside the queue so that a later `status` can show it; a flush
/// that delivers everything removes it.
enum RecordedDeliveryFailure {
  static func url(in dataDirectory: URL) -> URL { dataDirectory.appendingPathComponent("events-last-failure.txt") }

  /// The recorded failure, if any.
  static func read(in dataDirectory: URL) -> String? {
    (try? String(contentsOf: url(in: dataDirectory), encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Records `failure` (owner-only), or removes the record for `nil`; a failure to do either is not the command's.
  static func record(_ failure: String?, in dataDirectory: URL) {
    guard let failure else {
      try? FileManager.default.removeItem(at: url(in: dataDirectory))
      return
    }
    try? OwnerOnlyFiles.write(Data(failure.utf8), to: url(in: dataDirectory))
  }
}

extension CommandContext {
  /// The event tracker, opened on the data directory's queue; shut down after `body`.
  func withEvents<Result>(_ body: (EventTracker) async throws -> Result) async throws -> Result {
    try requireBackend(for: "deliver events")
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
