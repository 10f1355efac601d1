import KeelConcurrency
import Logging

/// Collects what a `Logger` logs, so that tests can assert on levels and messages (and on what never appears).
public final class LogCapture: Sendable {
  /// One logged message.
  public struct Entry: Sendable {
    /// Its level.
    public let level: Logger.Level
    /// Its text, metadata included as `key=value` after the message.
    public let message: String
  }

  private let entries = Locked<[Entry]>([])

  /// An empty capture.
  public init() {}

  /// A logger that logs into this capture at `level` and above.
  public func logger(level: Logger.Level = .trace) -> Logger {
    var logger = Logger(label: "keel.tests") { _ in Handler(capture: self) }
    logger.logLevel = level
    return logger
  }

  /// Everything logged so far.
  public var all: [Entry] { entries.withLock { $0 } }

  /// The messages logged at `level`.
  public func messages(at level: Logger.Level) -> [String] { all.filter { $0.level == level }.map(\.message) }

  /// Every message, all levels, as one text.
  public var text: String { all.map(\.message).joined(separator: "\n") }

  fileprivate func record(_ entry: Entry) { entries.withLock { $0.append(entry) } }

  private struct Handler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let merged = metadata.merging(event.metadata ?? [:]) { $1 }
      let suffix = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
      capture.record(Entry(level: event.level, message: "\(event.message)\(suffix)"))
    }
  }
}
