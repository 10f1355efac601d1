import Foundation
import KeelConcurrency
import Logging
import TestSupport
import Testing

@testable import KeelCLI

/// Every log line the CLI writes escapes control characters, as its results do: a server's message quoted in a log
/// line cannot retitle, clear or recolour the terminal.
@Suite("The CLI's log lines are printable")
struct PrintableLogHandlerTests {
  /// A handler that keeps what it is given.
  struct Recorder: LogHandler {
    let events: Locked<[LogEvent]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { events.withLock { $0.append(event) } }
  }

  @Test("Escape sequences in a message and in metadata, nested or not, reach the handler escaped")
  func escapes() throws {
    let events = Locked<[LogEvent]>([])
    let logger = Logger(label: "keel.tests") { _ in PrintableLogHandler(Recorder(events: events)) }
    let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J"
    let escaped = #"\e]0;pwned\a\e[2J"#
    logger.warning(
      "The server refused POST /v1/events: \(hostile)",
      metadata: ["reason": .string(hostile), "list": .array([.string(hostile)]), "nested": ["key": .string(hostile)]])
    let event = try #require(events.withLock { $0.first })
    #expect(event.message.description == "The server refused POST /v1/events: \(escaped)")
    #expect(event.metadata?["reason"] == .string(escaped))
    #expect(event.metadata?["list"] == .array([.string(escaped)]))
    #expect(event.metadata?["nested"] == .dictionary(["key": .string(escaped)]))
  }
}
