import ArgumentParser
import Foundation
import KeelJSON
import Realtime

/// `keel socketio URL`: a Socket.IO client on the command line, JSON lines in and out; the black box the realtime
/// client is checked through from outside.
struct SocketIOCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "socketio",
    abstract: "Connect to a Socket.IO server; emit what standard input says, print what happens as JSON lines.",
    discussion: """
      Standard input, one JSON object per line: {"emit":"NAME","args":[...]} emits, with "ack":true to ask for an \
      acknowledgement; {"disconnect":true} disconnects and exits 0. Binary data anywhere in args: \
      {"_binary":"BASE64"}.
      Standard output, one JSON object per line: {"type":"connect",...}, "connect_error", "event", "ack" (its id the \
      line number of the command that asked), "disconnect" (with socket.io-client's reasons) and "reconnecting" \
      (before each attempt, with its delay in seconds).
      When standard input ends (or is empty), waits for the connection and the outstanding acks (up to --timeout), \
      stays connected --duration seconds more, reconnecting as needed, then disconnects and exits 0; a \
      disconnection by the server exits 0 at once.
      Exit codes: 65 a line of standard input that is not a command (its number on standard error); 69 no \
      connection, or an acknowledgement missing, within --timeout; 77 the server refused the connection.
      """)

  @Argument(help: "The server's http(s) or ws(s) URL; the path defaults to /socket.io/.")
  var url: String

  @Option(help: "The namespace to join.")
  var namespace: String = "/"

  @Option(help: "The CONNECT auth payload, a JSON object, for example '{\"token\":\"…\"}'.")
  var auth: String?

  @Option(name: .customLong("header"), help: "A header on the WebSocket upgrade, \"Name: value\"; repeatable.")
  var headers: [String] = []

  @Option(help: "Seconds to stay connected after standard input ends.")
  var duration: Double = 0

  @Option(help: "Seconds to wait for a connection, and for acknowledgements.")
  var timeout: Double = 10

  func validate() throws {
    // The numbers first: the configuration turns --timeout into a duration, which NaN or infinity cannot be.
    guard duration >= 0, duration <= 86_400 * 365 else {
      throw ValidationError("--duration is a number of seconds, 0 or more.")
    }
    guard timeout > 0, timeout <= 86_400 * 365 else {
      throw ValidationError("--timeout is a number of seconds, more than 0.")
    }
    _ = try configuration()
  }

  func run() async throws {
    let session = try SocketIOSession(
      configuration: configuration(), timeout: .milliseconds(Int64(timeout * 1_000)),
      duration: .milliseconds(Int64(duration * 1_000)))
    let (status, message) = await session.run()
    guard status == .success else {
      Output(json: false).fail(CommandFailure(status, message ?? "Failed."))
      throw ExitCode(status.rawValue)
    }
  }

  /// The client's configuration from the flags.
  ///
  /// - Throws: `ValidationError` for a URL, namespace, auth payload or header that cannot work.
  private func configuration() throws -> SocketIOConfiguration {
    guard let address = URL(string: url), let scheme = address.scheme?.lowercased(),
      ["http", "https", "ws", "wss"].contains(scheme), address.host?.isEmpty == false
    else { throw ValidationError("'\(url)' is not an http(s) or ws(s) URL with a host.") }
    var payload: SocketValue?
    if let auth {
      guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(auth.utf8)), case .object = json,
        let value = try? SocketIOLines.socketValue(json)
      else { throw ValidationError("--auth is a JSON object, for example '{\"token\":\"…\"}'.") }
      payload = value
    }
    var fields: [String: String] = [:]
    for header in headers {
      let parts = header.split(separator: ":", maxSplits: 1)
      guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
        throw ValidationError("--header is \"Name: value\", not '\(header)'.")
      }
      fields[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
    }
    let configuration = SocketIOConfiguration(
      url: address, namespace: namespace, headers: fields, auth: { [payload] in payload },
      connectTimeout: .milliseconds(Int64(min(timeout, 20) * 1_000)))
    do {
      _ = try SocketIOClient(configuration: configuration, transport: CommandTransport.webSocket)
    } catch {
      throw ValidationError(error.description)
    }
    return configuration
  }
}
