import Foundation
import HTTPTypes
import Hummingbird
import KeelConcurrency
import Logging
import NIOCore
import Realtime

/// Turns each HTTP request into a contract response. It reads the body (at most its route's limit, 1 MiB unless the route says more), applies the faults in
/// force (except to `/_sandbox`), then the section's rules (`/v3`: rate limits and `Api-Token` tenancy;
/// `/v1/events`: tenancy) and the route's handler, and counts the response in the stats. Every error, including
/// unknown routes and wrong methods, comes back as the contract's JSON, in the shape of the section it belongs to.
struct SandboxResponder: HTTPResponder {
  typealias Context = SandboxContext

  /// The largest body a route reads unless it says otherwise (a message with images does).
  static let maxBodySize = 1 << 20

  let configuration: SandboxConfiguration
  let time: Timekeeper
  let stats: RecordedStatistics
  let faults: FaultInjector
  let rateLimiter: ServerRateLimiter
  let journal: RequestJournal
  let routes: RouteTable
  /// The Socket.IO server at `/socket.io/`.
  let realtime: SocketIOHub
  /// Keeps users and sessions between runs, when the configuration has a state directory.
  let persistence: (@Sendable () -> Void)?
  /// The console's page and live stream, when ``SandboxConfiguration/servesConsole`` is on.
  let console: SandboxConsole?

  init(configuration: SandboxConfiguration, stateFile: SandboxStateFile? = nil, logger: Logger? = nil) {
    let time = Timekeeper(configuration.clock)
    let stats = RecordedStatistics()
    let users = UsersAPI()
    let events = EventIngestion(stats: stats)
    let auth = AuthBackend(configuration: configuration, time: time, stats: stats)
    let faults = FaultInjector(initial: configuration.faults)
    let realtime = SocketIOHub(
      pingInterval: configuration.socketIOPingInterval, pingTimeout: configuration.socketIOPingTimeout,
      connectionsPerAddress: configuration.socketIOConnectionsPerAddress,
      refusal: { auth.socketRefusal($0) }, userID: { auth.socketUserID($0) },
      sessionGoesOn: { auth.sessionGoesOn(tokenDigest: $0) })
    auth.sessionsEnded.withLock { $0 = { realtime.endSessions(tokens: $0) } }
    let seedUserIDs =
      configuration.seedsChat
      ? configuration.accounts.keys.sorted().compactMap { auth.directory.account(email: $0)?.id } : []
    let chat = ChatBackend(
      auth: auth, imagesDirectory: stateFile?.url.deletingLastPathComponent().appendingPathComponent("chat-images"),
      seedUserIDs: seedUserIDs
    ) { event, users, payload in
      guard let args = try? SocketValue.resolving(payload, attachments: nil) else { return }
      for user in users { realtime.push(toUser: user, event: event, args: [args]) }
    }
    realtime.chatEvents.withLock { $0 = { user, event, args in chat.heard(event, args, from: user) } }
    let rateLimiter = ServerRateLimiter(limits: configuration.rateLimits, time: time)
    let journal = RequestJournal()
    let imageEdition = Locked(0)
    let control = ControlPlane(
      faults: faults, stats: stats, journal: journal, realtime: realtime, expireTokens: { auth.expireAccessTokens() },
      redrawImages: {
        imageEdition.withLock {
          $0 += 1
          return $0
        }
      },
      reset: {
        imageEdition.withLock { $0 = 0 }
        users.reset()
        events.reset()
        auth.reset()
        chat.reset()
        rateLimiter.reset()
        journal.reset()
        stats.reset()
        realtime.clearFaults()
      }, chatSummary: { chat.summaryJSON }, uptime: { time.now() })
    let console =
      configuration.servesConsole
      ? SandboxConsole(control: control, key: configuration.controlKey ?? configuration.accessKey) : nil
    self.console = console
    self.configuration = configuration
    self.time = time
    self.stats = stats
    self.faults = faults
    self.rateLimiter = rateLimiter
    self.journal = journal
    self.realtime = realtime
    let segment = SegmentIngestion(events: events) { writeKey in
      configuration.apiTokens.isEmpty || configuration.apiTokens.contains(writeKey) ? Secrets.digest(writeKey) : nil
    }
    self.routes = RouteTable(
      users.routes + auth.routes + auth.identity.routes + [auth.identity.mintingRoute] + chat.routes + events.routes
        + segment.routes
        + ImageServer(stats: stats, renderer: ImageRenderer(stats: stats), edition: imageEdition).routes
        + control.routes + (console?.routes ?? []))
    persistence = stateFile.map { file in
      let setAside = { (aside: URL) -> Void in
        logger?.warning(
          "The Sandbox's state file could not be read; it was moved to \(aside.path), and the Sandbox starts empty.")
      }
      if let kept = file.load(setAside: setAside) {
        users.restore(kept.users)
        auth.restore(kept.auth, takenAgo: .seconds(max(0, Date().timeIntervalSince(kept.savedAt))))
        if let accounts = kept.accounts { auth.directory.restore(accounts) }
        if let kept = kept.chat { chat.restore(kept) }
      }
      return {
        do {
          try file.save {
            SandboxStateFile.Contents(
              users: users.snapshot, auth: auth.snapshot, accounts: auth.directory.snapshot, chat: chat.snapshot,
              savedAt: Date())
          }
        } catch {
          logger?.error("Cannot keep the Sandbox's state in \(file.url.path): \(error)")
        }
      }
    }
    // A workspace made to try is kept at once, so that the next run serves the same one.
    if configuration.seedsChat { persistence?() }
  }

  func respond(to request: Request, context: Context) async throws -> Response {
    let arrival = time.now()
    var request = request
    // Read once: Hummingbird builds the path's string anew on every read.
    let path = request.uri.path
    // Split once, for the section and for routing, which read the same segments.
    let segments = path.split(separator: "/")
    let section = Section(segments: segments)
    // Before anything is read, counted or changed: a request without the key learns nothing and leaves no trace.
    if let refusal = refusal(of: request, in: section, path: path, from: context.channel.remoteAddress) {
      return Response(
        status: refusal.status, headers: refusal.headers,
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: refusal.body)))
    }
    if let console, section == .control, request.method == .get, path == SandboxConsole.streamPath {
      return console.stream()
    }
    // Resolved once: for the handler, for the section's rules and for the stats.
    let resolution = routes.resolve(request.method, segments: segments)
    // The tenant's token and its digest, read once: for tenancy, for the rate limit and for the journal.
    let token = (section == .control ? nil : request.headers[Self.apiToken]).map {
      (value: $0, digest: Secrets.digest($0))
    }
    // /v3 counts against its rate limit first, so that every /v3 response carries the headers: faulted, too large
    // and refused ones included.
    let limit =
      section == .platform && configuration.rateLimitsEnabled
      ? rateLimiter.admit(tenant: token?.value ?? "", method: request.method) : nil
    var response: SandboxResponse
    // What the journal keeps of the body (masked there), once it has been read.
    var readBody: Data?
    do {
      try admit(request, path: path, resolution: resolution)
      let body = try await request.collectBody(upTo: resolution.maxBodySize)
      var sandboxRequest = SandboxRequest(
        method: request.method, path: path, headers: request.headers,
        query: Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { $1 },
        body: Data(body.readableBytesView), rawParameters: [:])
      sandboxRequest.authority = request.head.authority
      readBody = sandboxRequest.body
      let decision =
        section == .control
        ? FaultInjector.Decision()
        : faults.decide(
          method: sandboxRequest.method.rawValue, path: sandboxRequest.path)
      if let faulted = try await apply(decision, in: section, context: context) {
        response = faulted
      } else if let limit, !limit.allowed {
        response = PlatformError.tooManyRequests("\(limit.limit);w=1").response
      } else {
        response = await handle(sandboxRequest, in: section, resolution: resolution, token: token)
        if decision.dropResponse { try await drop(context) }
      }
    } catch let error as DroppedConnection {
      throw error
    } catch let error as CancellationError {
      throw error
    } catch let refused as RefusedBeforeReading {
      response = Self.response(to: refused.error, in: section)
    } catch is NIOTooManyBytesError {
      response = section.tooLarge
    } catch {
      // The body ended before its declared length, or its chunked encoding broke: a bad request, not a large one.
      response = section.malformedBody("the body could not be read whole (\(error))")
    }
    if let limit { response.headers.append(contentsOf: limit.headers) }
    // What changed users or sessions is kept before the client hears of it (GETs change nothing worth keeping).
    if let persistence, request.method != .get, section == .platform || section == .backend || section == .control {
      persistence()
    }
    // The control plane is not counted: its own calls (a reset above all) would only blur what the tests look at.
    if section != .control {
      stats.record(route: resolution.statsKey, status: Int(response.status.code))
      journal.record(
        method: request.method.rawValue, path: path, query: request.uri.query ?? "", headers: request.headers,
        tokenDigest: token?.digest, body: readBody, status: Int(response.status.code), arrival: arrival,
        answered: time.now())
      context.logger.debug(
        "\(resolution.statsKey) → \(response.status.code)", metadata: ["path": "\(path)"])
    }
    return Response(
      status: response.status, headers: response.headers,
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
  }

  /// The header that names a tenant.
  static let apiToken = HTTPField.Name("Api-Token")!
  /// The header that carries ``SandboxConfiguration/accessKey`` or ``SandboxConfiguration/controlKey``.
  static let key = HTTPField.Name("Sandbox-Key")!
}
