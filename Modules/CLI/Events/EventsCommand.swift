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

/// `keel events track signed_up --property plan=pro --property seats=3`: stores one event.
struct EventsTrackCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "track", abstract: "Store an event in the durable queue; `flush` delivers it.")

  @Argument(help: "The event's name.")
  var name: String

  @Option(
    name: .customLong("property"),
    help: "A property as KEY=VALUE (repeatable); JSON numbers and true/false are typed, the rest are strings.")
  var properties: [String] = []

  @OptionGroup var global: GlobalOptions

  private struct Tracked: Encodable {
    let eventId: String
    let name: String
    let pending: Int
  }

  func validate() throws {
    for property in properties where !property.contains("=") || property.hasPrefix("=") {
      throw ValidationError("'\(property)' is not KEY=VALUE, such as plan=pro.")
    }
  }

  func run() async throws {
    try await global.run { context in
      let event = AnalyticsEvent(name: name, properties: Dictionary(properties.map(Self.property)) { $1 })
      let pending = try await context.withEvents { tracker in
        try await tracker.track(event)
        return await tracker.loadedStatus.pending
      }
      try context.output.result(
        Tracked(eventId: event.eventId.uuidString, name: name, pending: pending),
        human: "Stored \(name) (\(event.eventId.uuidString)); \(pending) pending. `keel events flush` delivers them.")
    }
  }

  private static func property(_ text: String) -> (String, JSONValue) {
    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let value = parts.count > 1 ? parts[1] : ""
    switch value {
    case "true": return (parts[0], .bool(true))
    case "false": return (parts[0], .bool(false))
    case _ where isJSONNumber(value): return (parts[0], Double(value).map(JSONValue.number) ?? .string(value))
    default: return (parts[0], .string(value))
    }
  }

  /// Whether `text` is written as a JSON number is: `3`, `-0.5`, `1e3`; not `02134` (a zip code) or `0x1F`.
  private static func isJSONNumber(_ text: String) -> Bool {
    text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil
  }
}

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

/// `keel events status`: what the queue holds.
struct EventsStatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Show how many events wait in the durable queue.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      let status = try await context.withEvents { QueueStatus(await $0.loadedStatus) }
      try context.output.result(status, human: status.line)
    }
  }
}
