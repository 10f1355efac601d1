import Foundation
import KeelJSON
import Realtime

/// The JSON lines of `keel socketio`: what standard input may say, and what standard output says.
enum SocketIOLines {
  /// One command on standard input.
  enum Command: Equatable {
    /// `{"emit":"NAME","args":[...],"ack":true}`: emit, asking for an acknowledgement when `ack`.
    case emit(name: String, args: [SocketValue], ack: Bool)
    /// `{"disconnect":true}`.
    case disconnect
  }

  /// The command in `line`, or why it is none.
  static func command(_ line: String) -> Result<Command, LineError> {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
      case .object(let fields) = value
    else { return .failure(LineError("it is not a JSON object")) }
    if fields == ["disconnect": .bool(true)] { return .success(.disconnect) }
    guard case .string(let name)? = fields["emit"] else {
      return .failure(LineError(#"it has neither "emit" (a string) nor "disconnect": true"#))
    }
    let unknown = Set(fields.keys).subtracting(["emit", "args", "ack"])
    guard unknown.isEmpty else {
      return .failure(LineError("it has keys an emit does not take: \(unknown.sorted().joined(separator: ", "))"))
    }
    var ack = false
    switch fields["ack"] {
    case nil: break
    case .bool(let value)?: ack = value
    default: return .failure(LineError(#""ack" is not true or false"#))
    }
    var args: [SocketValue] = []
    switch fields["args"] {
    case nil: break
    case .array(let values)?:
      do {
        args = try values.map(socketValue)
      } catch {
        return .failure(error)
      }
    default: return .failure(LineError(#""args" is not an array"#))
    }
    return .success(.emit(name: name, args: args, ack: ack))
  }

  /// Why a line of standard input is not a command.
  struct LineError: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
  }

  /// `json` as an argument: `{"_binary":"BASE64"}` is binary data.
  static func socketValue(_ json: JSONValue) throws(LineError) -> SocketValue {
    try SocketValue(json) { fields throws(LineError) -> Data? in
      guard fields.count == 1, let binary = fields["_binary"] else { return nil }
      guard case .string(let base64) = binary, let data = Data(base64Encoded: base64) else {
        throw LineError(#"a "_binary" value is not base64"#)
      }
      return data
    }
  }

  /// `value` as JSON, binary data as `{"_binary":"BASE64"}`.
  static func json(_ value: SocketValue) -> JSONValue {
    value.json { .object(["_binary": .string($0.base64EncodedString())]) }
  }

  // MARK: - Output

  /// `{"type":"connect","namespace":"/","sid":"…"}`
  static func connect(namespace: String, sid: String) -> String {
    line([("type", "connect"), ("namespace", .string(namespace)), ("sid", .string(sid))])
  }

  /// `{"type":"connect_error","namespace":"/","message":"…"}`
  static func connectError(namespace: String, message: String) -> String {
    line([("type", "connect_error"), ("namespace", .string(namespace)), ("message", .string(message))])
  }

  /// `{"type":"event","namespace":"/","event":"NAME","args":[...]}`
  static func event(_ event: SocketEvent) -> String {
    line([
      ("type", "event"), ("namespace", .string(event.namespace)), ("event", .string(event.name)),
      ("args", .array(event.args.map(json))),
    ])
  }

  /// `{"type":"ack","id":N,"args":[...]}`, N the line number of the command that asked for it.
  static func ack(line number: Int, args: [SocketValue]) -> String {
    line([("type", "ack"), ("id", .number(Double(number))), ("args", .array(args.map(json)))])
  }

  /// `{"type":"disconnect","reason":"…"}`
  static func disconnect(_ reason: SocketDisconnectReason) -> String {
    line([("type", "disconnect"), ("reason", .string(reason.rawValue))])
  }

  /// `{"type":"reconnecting","attempt":N,"delay":SECONDS}`, the delay in milliseconds' precision.
  static func reconnecting(attempt: Int, delay: Duration) -> String {
    let milliseconds = delay.components.seconds * 1_000 + delay.components.attoseconds / 1_000_000_000_000_000
    return line([
      ("type", "reconnecting"), ("attempt", .number(Double(attempt))), ("delay", .number(Double(milliseconds) / 1_000)),
    ])
  }

  /// One JSON object with its keys in the given order (the contract's), values encoded one by one.
  private static func line(_ fields: [(String, JSONValue)]) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let members = fields.map { key, value in
      let encoded = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
      return "\"\(key)\":\(encoded)"
    }
    return "{" + members.joined(separator: ",") + "}"
  }
}
