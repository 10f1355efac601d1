import ArgumentParser
import Domain
import Foundation
import KeelJSON

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
    try await global.run(sends: false) { context in
      let event = AnalyticsEvent(name: name, properties: Dictionary(properties.map(Self.property)) { $1 })
      let pending = try await context.withEvents { tracker in
        try await tracker.track(event)
        return await tracker.loadedStatus.pending
      }
      try context.output.result(
        Tracked(eventId: event.eventId.uuidString, name: name, pending: pending),
        human: "Stored \(name) (\(event.eventId.uuidString)); \(pending) pending. `keel events flush` delivers "
          + (pending == 1 ? "it." : "them."))
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
