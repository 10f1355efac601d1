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
/// sets an HTTP-only, same-site cookie named for the port, which holds a keyed digest of the key under a secret of
/// this run (never the key, and good for nothing once the Sandbox stops), and sends the browser to the same page
/// without it. The cookie stands for the key only for a request no other origin could have made: one to a loopback
/// host name whose `Origin`, when it has one, is the Sandbox's own, and, for anything but a read, that says so in a
/// `Sandbox-Console` header (which no other origin can send without a CORS preflight the Sandbox never answers).
struct SandboxConsole: Sendable {
  /// The page.
  static let path = "/_sandbox/console"
  /// The live journal and state, as server-sent events.
  static let streamPath = "/_sandbox/console/stream"
  /// The cookie that stands for the control key, followed by the port: cookies ignore ports, and two Sandboxes on one
  /// machine must not overwrite each other's.
  static let cookiePrefix = "keel_sandbox_console_"
  /// The header a write from the page carries.
  static let header = HTTPField.Name("Sandbox-Console")!

  let control: ControlPlane
  /// The key the control plane requires (its control key, or the access key), `nil` when it is open.
  let key: String?
  /// The page's files, read once from the module's resources.
  private let files: [String: (contentType: String, body: Data)]
  /// This run's secret, under which the cookie digests the key.
  private let secret: String

  init(control: ControlPlane, key: String?) {
    self.control = control
    self.key = key
    secret = SandboxConfiguration.randomKey()
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

  /// The cookie's value for `key`: a digest of it under this run's secret, so that the browser never holds the key
  /// itself, nothing guesses the key from the cookie, and the cookie is good for this console alone.
  func cookieValue(for key: String) -> String { Secrets.digest(secret + "\u{0}" + key) }

  /// The cookie's name for a request to `authority` (`127.0.0.1:8080`): the prefix and the port.
  static func cookieName(for authority: String?) -> String {
    cookiePrefix + String((authority ?? "").reversed().prefix { $0 != ":" }.reversed())
  }

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
          "\(Self.cookieName(for: request.authority))=\(cookieValue(for: key)); Path=/_sandbox; HttpOnly; "
          + "SameSite=Strict"
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

  /// Why a request to the control plane is refused, whatever key it carries: a host name that is neither loopback
  /// nor `host`, the one the Sandbox binds (a name an attacker's DNS points at 127.0.0.1, whose pages would otherwise
  /// read the control plane as their own origin), or, from a browser, an `Origin` other than the Sandbox's own or a
  /// cross-site or same-site (another port's) fetch; `nil` for any other request, a test's or the CLI's included.
  static func browserRefusal(of request: Request, host: String) -> String? {
    if let authority = request.head.authority, !isLoopback(host: authority), name(of: authority) != host {
      return "The control plane answers only at a loopback address."
    }
    if let origin = request.headers[.origin], origin != "http://" + (request.head.authority ?? "") {
      return "The control plane answers no other origin."
    }
    if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
      return "The control plane answers no other site."
    }
    return nil
  }

  /// Whether `request` comes from the console in a browser that opened it with `key`: the key in the page's URL, or
  /// the cookie, on a request ``crossOriginRefusal(of:)`` let through, that says it is the console's when it writes.
  /// One `key=` only: a URL with several tries no more than one guess.
  func presents(_ key: String, in request: Request, path: String) -> Bool {
    if request.method == .get, path == Self.path, let query = request.uri.query {
      let keys = query.split(separator: "&").filter { $0.hasPrefix("key=") }
      if keys.count == 1, Secrets.matches(String(keys[0].dropFirst(4)).removingPercentEncoding ?? "", key) {
        return true
      }
    }
    if request.method != .get && request.method != .head {
      guard request.headers[Self.header] == "1", request.headers[.origin] != nil else { return false }
    }
    // Every cookie of the name: another server of the machine may have set one of its own, with another path.
    let name = Self.cookieName(for: request.head.authority) + "="
    let expected = cookieValue(for: key)
    var matched = false
    for field in request.headers[values: .cookie] {
      for pair in field.split(separator: ";") {
        let trimmed = pair.drop { $0 == " " }
        if trimmed.hasPrefix(name), Secrets.matches(String(trimmed.dropFirst(name.count)), expected) { matched = true }
      }
    }
    return matched
  }

  /// The host name of `authority`, without its port (and an IPv6 literal without its brackets).
  private static func name(of authority: String) -> Substring {
    authority.hasPrefix("[") ? authority.dropFirst().prefix { $0 != "]" } : authority.prefix { $0 != ":" }
  }

  /// Whether `host` (a `Host` header: a name and a port) names this machine by a loopback address or `localhost`.
  private static func isLoopback(host: String) -> Bool {
    let name = name(of: host)
    return name == "localhost" || name == "::1"
      || (name.hasPrefix("127.") && name.allSatisfy { $0.isNumber || $0 == "." })
  }

  // MARK: - The live stream

  /// The journal as it is, then each request as it is journaled and the state every second, as server-sent events
  /// (`journal`, `request`, `state`; a reset sends `journal` again, empty, as does a reader so far behind that the
  /// journal dropped rows it had not had); it ends when the browser goes or the Sandbox stops. What waits for a slow
  /// browser is bounded by the journal itself: the stream reads what is new when it can write, never a queue.
  func stream() -> Response {
    var headers: HTTPFields = [.contentType: "text/event-stream"]
    for (name, value) in Self.securityHeaders { headers[name] = value }
    let control = control
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        let journal = control.journal
        let (wakes, start) = journal.follow()
        let (items, sink) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingNewest(2))
        let forward = Task {
          for await _ in wakes { sink.yield(.journal) }
        }
        let tick = Task {
          while !Task.isCancelled {
            sink.yield(.state)
            try? await Task.sleep(for: .seconds(1))
          }
        }
        defer {
          forward.cancel()
          tick.cancel()
        }
        try await withGracefulShutdownHandler {
          var position = start
          try await writer.write(Self.news(journal.since(position), position: &position))
          for await item in items {
            // What is new in the journal goes first whatever woke the stream: with two wakes at most waiting, a
            // journal's wake may give way to a newer one, or to a tick, never to nothing.
            var buffer = Self.news(journal.since(position), position: &position)
            if item == .state { buffer.writeImmutableBuffer(Self.event("state", control.state)) }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
          }
        } onGracefulShutdown: {
          sink.finish()
        }
        try await writer.finish(nil)
      })
  }

  private enum Item: Sendable, Equatable {
    case journal
    case state
  }

  /// `news` as events, in one buffer: each new row a `request`, or the whole journal a `journal`.
  private static func news(_ news: RequestJournal.News, position: inout RequestJournal.Position) -> ByteBuffer {
    switch news {
    case .rows(let rows, let last):
      position = last
      var buffer = ByteBuffer()
      for row in rows { buffer.writeImmutableBuffer(event("request", row)) }
      return buffer
    case .journal(let page, let last):
      position = last
      return event("journal", page)
    }
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
