import Foundation
import HTTPTypes
import Hummingbird
import KeelConcurrency
import KeelJSON
import NIOCore
import ServiceLifecycle

/// The console: a web page at `/_sandbox/console` that shows what the Sandbox sees (the request journal as it grows,
/// the responses per route and status, the connected sockets, the chat) and sets its faults, each control the same
/// call as the JSON control plane. Served only when ``SandboxConfiguration/servesConsole`` is on (`keel sandbox
/// serve`), under the control plane's rules: loopback only, and with the control key.
///
/// A browser presents the key once, in the URL `keel sandbox serve` prints (`/_sandbox/console?key=…`); the answer
/// sets an HTTP-only, same-site cookie that holds a digest of the key (never the key) and sends the browser to the
/// same page without it. The cookie stands for the key only for a request no other origin could have made: one whose
/// `Origin`, when it has one, is the Sandbox's own, to a loopback host name, and, for anything but a read, that says
/// so in a `Sandbox-Console` header (which no other origin can send without a CORS preflight the Sandbox never
/// answers).
struct SandboxConsole: Sendable {
  /// The page.
  static let path = "/_sandbox/console"
  /// The live journal and state, as server-sent events.
  static let streamPath = "/_sandbox/console/stream"
  /// The cookie that stands for the control key.
  static let cookieName = "keel_sandbox_console"
  /// The header a write from the page carries.
  static let header = HTTPField.Name("Sandbox-Console")!

  let control: ControlPlane
  /// The key the control plane requires (its control key, or the access key), `nil` when it is open.
  let key: String?
  /// The page's files, read once from the module's resources.
  private let files: [String: (contentType: String, body: Data)]

  init(control: ControlPlane, key: String?) {
    self.control = control
    self.key = key
    var files: [String: (String, Data)] = [:]
    for (name, type) in [
      ("console.html", "text/html; charset=utf-8"), ("console.css", "text/css; charset=utf-8"),
      ("console.js", "text/javascript; charset=utf-8"),
    ] {
      let parts = name.split(separator: ".")
      if let url = Bundle.module.url(forResource: String(parts[0]), withExtension: String(parts[1])),
        let body = try? Data(contentsOf: url)
      {
        files[name] = (type, body)
      }
    }
    self.files = files
  }

  /// The cookie's value for `key`: a digest of it under the console's own label, so that the browser never holds
  /// the key itself and the cookie is good for nothing but the console.
  static func cookieValue(for key: String) -> String { Secrets.digest("keel-sandbox-console\u{0}" + key) }

  var routes: [Route] {
    [
      Route(.get, Self.path, handler: page),
      Route(.get, Self.path + "/:file") { request in
        guard let name = request.rawParameters["file"], let file = files[String(name)] else {
          throw BackendError(status: .notFound, code: "E404", message: "The console has no such file.")
        }
        return Self.response(file.body, type: file.contentType)
      },
    ]
  }

  /// The page; with the key in the URL, the cookie and a redirect to the page without it instead.
  private func page(_ request: SandboxRequest) throws -> SandboxResponse {
    if request.query["key"] != nil {
      var response = Self.response(Data(), type: "text/plain; charset=utf-8", status: .seeOther)
      response.headers[.location] = Self.path
      if let key {
        response.headers[.setCookie] =
          "\(Self.cookieName)=\(Self.cookieValue(for: key)); Path=/_sandbox; HttpOnly; SameSite=Strict"
      }
      return response
    }
    guard let page = files["console.html"] else {
      throw BackendError(status: .internalServerError, code: "E500", message: "The console's files are missing.")
    }
    return Self.response(page.body, type: page.contentType)
  }

  /// What every answer of the console carries: its own files only (no other host, no inline script), never framed,
  /// never cached, never sniffed, no referrer.
  static func response(_ body: Data, type: String, status: HTTPResponse.Status = .ok) -> SandboxResponse {
    var headers: HTTPFields = [.contentType: type]
    for (name, value) in securityHeaders { headers[name] = value }
    return SandboxResponse(status: status, body: body, headers: headers)
  }

  private static let securityHeaders: [(HTTPField.Name, String)] = [
    (
      .contentSecurityPolicy,
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    (.cacheControl, "no-store"), (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
    (HTTPField.Name("Referrer-Policy")!, "no-referrer"), (HTTPField.Name("X-Frame-Options")!, "DENY"),
  ]

  // MARK: - Who may use it

  /// Why a browser's request to the control plane is refused, whatever key it carries: an `Origin` other than the
  /// Sandbox's own, a cross-site or same-site (another port's) fetch, or a host name that is not loopback (a name an
  /// attacker's DNS points at 127.0.0.1); `nil` for any other request, a test's or the CLI's included.
  static func crossOriginRefusal(of request: Request) -> String? {
    let origin = request.headers[.origin]
    let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
    guard origin != nil || site != nil else { return nil }
    guard let host = request.head.authority, isLoopback(host: host) else {
      return "The control plane answers a browser only at a loopback address."
    }
    if let origin, origin != "http://" + host { return "The control plane answers no other origin." }
    if let site, site != "same-origin", site != "none" { return "The control plane answers no other site." }
    return nil
  }

  /// Whether `request` comes from the console in a browser that opened it with `key`: the key in the page's URL, or
  /// the cookie, on a request ``crossOriginRefusal(of:)`` let through, that says it is the console's when it writes.
  static func presents(_ key: String, in request: Request, path: String) -> Bool {
    if request.method == .get, path == Self.path, let query = request.uri.query {
      for item in query.split(separator: "&") where item.hasPrefix("key=") {
        let value = String(item.dropFirst(4)).removingPercentEncoding ?? ""
        if Secrets.matches(value, key) { return true }
      }
    }
    guard let cookie = cookie(in: request) else { return false }
    if request.method != .get && request.method != .head {
      guard request.headers[Self.header] == "1", request.headers[.origin] != nil else { return false }
    }
    return Secrets.matches(cookie, cookieValue(for: key))
  }

  private static func cookie(in request: Request) -> String? {
    for field in request.headers[values: .cookie] {
      for pair in field.split(separator: ";") {
        let trimmed = pair.drop { $0 == " " }
        if trimmed.hasPrefix(cookieName + "=") { return String(trimmed.dropFirst(cookieName.count + 1)) }
      }
    }
    return nil
  }

  /// Whether `host` (a `Host` header: a name and a port) names this machine by a loopback address or `localhost`.
  private static func isLoopback(host: String) -> Bool {
    let name: Substring
    if host.hasPrefix("[") {
      name = host.dropFirst().prefix { $0 != "]" }
    } else {
      name = host.prefix { $0 != ":" }
    }
    return name == "localhost" || name == "::1"
      || (name.hasPrefix("127.") && name.allSatisfy { $0.isNumber || $0 == "." })
  }

  // MARK: - The live stream

  /// The journal as it is, then each request as it is journaled and the state every second, as server-sent events
  /// (`journal`, `request`, `state`; a reset sends `journal` again, empty); it ends when the browser goes or the
  /// Sandbox stops.
  func stream() -> Response {
    var headers: HTTPFields = [.contentType: "text/event-stream"]
    for (name, value) in Self.securityHeaders { headers[name] = value }
    let control = control
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        let (now, changes) = control.journal.follow()
        let (items, sink) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingNewest(RequestJournal.capacity))
        let forward = Task {
          for await change in changes { sink.yield(.change(change)) }
        }
        let tick = Task {
          while !Task.isCancelled {
            sink.yield(.tick)
            try? await Task.sleep(for: .seconds(1))
          }
        }
        defer {
          forward.cancel()
          tick.cancel()
        }
        try await withGracefulShutdownHandler {
          try await writer.write(Self.event("journal", now))
          for await item in items {
            switch item {
            case .change(.recorded(let entry)): try await writer.write(Self.event("request", entry.json))
            case .change(.reset): try await writer.write(Self.event("journal", ["requests": [], "dropped": 0]))
            case .tick: try await writer.write(Self.event("state", control.state))
            }
          }
        } onGracefulShutdown: {
          sink.finish()
        }
        try await writer.finish(nil)
      })
  }

  private enum Item: Sendable {
    case change(RequestJournal.Change)
    case tick
  }

  /// One server-sent event: its name and its data, JSON on one line.
  private static func event(_ name: String, _ data: JSONValue) -> ByteBuffer {
    var writer = JSONWriter()
    writer.write(data)
    var buffer = ByteBuffer()
    buffer.writeString("event: \(name)\ndata: ")
    buffer.writeBytes(writer.bytes)
    buffer.writeString("\n\n")
    return buffer
  }
}

extension SocketIOHub {
  /// The connected sockets, one row for each namespace each has joined, as the console lists them.
  var socketsJSON: JSONValue {
    let sockets = state.withLock { $0.sockets.sorted { $0.key < $1.key }.map(\.value) }
    return .array(
      sockets.flatMap { socket in
        socket.memberships.map { membership -> JSONValue in
          [
            "id": .string(membership.sid), "connection": .number(Double(socket.id)),
            "namespace": .string(membership.namespace), "user": membership.user.map { .string($0) } ?? .null,
            "rooms": .array(membership.rooms.map { .string($0) }),
          ]
        }
      })
  }

  /// The socket faults in force, as the console shows them.
  var faultsJSON: JSONValue {
    let silenced = silenced
    return state.withLock { state in
      [
        "silenced": .bool(silenced), "delayMs": .number(Double(Self.milliseconds(state.delay))),
        "duplicate": .bool(state.duplicates), "reorderMs": .number(Double(Self.milliseconds(state.reorder))),
        "loseNext": .number(Double(state.lose)),
      ]
    }
  }
}

extension ChatBackend {
  /// The workspaces, each with its conversations and how many messages each holds, as the console lists them.
  var summaryJSON: JSONValue {
    state.withLock { state in
      let byWorkspace = Dictionary(grouping: state.conversations.values, by: \.workspaceID)
      return [
        "workspaces": .array(
          state.workspaces.values.sorted { $0.id < $1.id }.map { workspace -> JSONValue in
            let conversations = (byWorkspace[workspace.id] ?? []).sorted { $0.id < $1.id }.map {
              conversation -> JSONValue in
              [
                "id": .string(conversation.id), "name": .string(conversation.name),
                "kind": .string(conversation.kind.rawValue),
                "messages": .number(Double(state.messages[conversation.id]?.count ?? 0)),
              ]
            }
            return [
              "id": .string(workspace.id), "name": .string(workspace.name), "conversations": .array(conversations),
            ]
          })
      ]
    }
  }
}
