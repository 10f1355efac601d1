import Logging

/// A log handler that writes what ``Output/printable(_:keepingLineBreaks:)`` makes of each message and metadata value:
/// a log line quotes what a server said (an error's message, a header), and a hostile server's escape sequences must
/// not reach the terminal through it any more than through a command's result.
struct PrintableLogHandler: LogHandler {
  private var base: any LogHandler

  /// Escapes for `base`.
  init(_ base: any LogHandler) {
    self.base = base
  }

  /// Every log line the CLI writes, escaped, on standard error.
  static func standardError(label: String) -> PrintableLogHandler {
    PrintableLogHandler(StreamLogHandler.standardError(label: label))
  }

  var logLevel: Logger.Level {
    get { base.logLevel }
    set { base.logLevel = newValue }
  }

  var metadata: Logger.Metadata {
    get { base.metadata }
    set { base.metadata = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { base[metadataKey: key] }
    set { base[metadataKey: key] = newValue }
  }

  func log(event: LogEvent) {
    var escaped = event
    escaped.message = "\(Output.printable(event.message.description))"
    escaped.metadata = event.metadata?.mapValues(Self.printable)
    base.log(event: escaped)
  }

  private static func printable(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
    switch value {
    case .string(let text): .string(Output.printable(text))
    case .stringConvertible(let convertible): .string(Output.printable(convertible.description))
    case .array(let values): .array(values.map(printable))
    case .dictionary(let values): .dictionary(values.mapValues(printable))
    }
  }
}
