import Foundation
import HTTPTypes
import Hummingbird
import KeelConcurrency
import Logging
import NIOCore
import Realtime

extension SandboxResponder {
  /// The answer to a request that may not be served: 401 without the access key, 403 for the control plane from
  /// off the machine, 401 for it without the control key; `nil` for one that may.
  ///
  /// A request to the control plane that names another host than a loopback one (or the one the Sandbox binds) is
  /// refused (403), as is a browser's request from another origin (``SandboxConsole/browserRefusal(of:host:)``); the
  /// console's cookie stands for the key there.
  func refusal(of request: Request, in section: Section, path: String, from peer: SocketAddress?) -> SandboxResponse? {
    // An open Sandbox's requests outside the control plane name no key: nothing to read.
    guard configuration.accessKey != nil || section == .control else { return nil }
    let presented = request.headers[Self.key]
    let console = section == .control ? console : nil
    func carries(_ key: String) -> Bool {
      Secrets.matches(presented, key) || console?.presents(key, in: request, path: path) == true
    }
    if let accessKey = configuration.accessKey, !carries(accessKey) {
      return BackendError.keyRequired.response
    }
    guard section == .control else { return nil }
    guard Self.isLoopback(peer) else {
      return BackendError(status: .forbidden, code: "E403", message: "The control plane is loopback only.").response
    }
    if let reason = SandboxConsole.browserRefusal(of: request, host: configuration.host) {
      return BackendError(status: .forbidden, code: "E403", message: reason).response
    }
    if let controlKey = configuration.controlKey ?? configuration.accessKey, !carries(controlKey) {
      return BackendError.keyRequired.response
    }
    return nil
  }

  /// Closes the request's connection without an answer. The drop is counted first, so that a client that sees the
  /// connection close and then asks for the statistics finds it there.
  func drop(_ context: Context) async throws -> Never {
    stats.count("droppedConnections")
    try? await context.channel.close()
    throw DroppedConnection()
  }

  /// Waits the injected latency; returns the injected error response in `section`'s shape, closes the connection, or
  /// lets the request through.
  func apply(_ decision: FaultInjector.Decision, in section: Section, context: Context) async throws
    -> SandboxResponse?
  {
    if decision.latency > .zero { try await time.sleep(decision.latency) }
    if decision.dropConnection { try await drop(context) }
    guard let status = decision.status else { return nil }
    return section.injected(status: status, retryAfterSeconds: decision.retryAfterSeconds)
  }

  /// `/v3` and `/v1/events` need a tenant (`Api-Token`, here with its digest); an unknown route is 404 whatever the
  /// token.
  func handle(
    _ request: SandboxRequest, in section: Section, resolution: RouteResolution,
    token: (value: String, digest: String)?
  ) async -> SandboxResponse {
    guard section == .platform || section == .events else {
      return await dispatch(request, in: section, resolution: resolution)
    }
    if case .notFound = resolution { return section.notFound(request.path) }
    guard let tenant = tenant(of: token) else { return PlatformError.invalidAPIToken.response }
    var request = request
    request.tenant = tenant
    return await dispatch(request, in: section, resolution: resolution)
  }

  /// The tenant named by `Api-Token`: any non-empty token in open mode, else one of the configured tokens. A tenant
  /// is known by its token's digest, which is what a state file keeps.
  func tenant(of token: (value: String, digest: String)?) -> String? {
    guard let token, !token.value.isEmpty else { return nil }
    return configuration.apiTokens.isEmpty || configuration.apiTokens.contains(token.value) ? token.digest : nil
  }

  func dispatch(
    _ request: SandboxRequest, in section: Section, resolution: RouteResolution
  ) async -> SandboxResponse {
    switch resolution {
    case .route(let route, let parameters):
      var routed = request
      routed.rawParameters = parameters
      do {
        return try await route.handler(routed)
      } catch {
        return Self.response(to: error, in: section)
      }
    case .methodNotAllowed(let allowed):
      var response = section.methodNotAllowed(request.method, request.path)
      response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
      return response
    case .notFound:
      return section.notFound(request.path)
    }
  }

  /// The answer to a route's error: the contract's own, or a 500 of the section's shape.
  static func response(to error: any Error, in section: Section) -> SandboxResponse {
    switch error {
    case let error as PlatformError: error.response
    case let error as BackendError: error.response
    default: section.internalError("\(error)")
    }
  }

  /// Asks the route's ``Route/admits`` of the request's headers, before its body is read.
  ///
  /// - Throws: ``RefusedBeforeReading`` with what it refused.
  func admit(_ request: Request, path: String, resolution: RouteResolution) throws {
    guard case .route(let route, let parameters) = resolution, let admits = route.admits else { return }
    let headersOnly = SandboxRequest(
      method: request.method, path: path, headers: request.headers, query: [:], body: Data(),
      rawParameters: parameters)
    do {
      try admits(headersOnly)
    } catch {
      throw RefusedBeforeReading(error: error)
    }
  }

  static func isLoopback(_ address: SocketAddress?) -> Bool {
    guard let ip = address?.ipAddress else { return false }
    return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
  }
}

/// Thrown to make Hummingbird abandon a request whose connection a fault closed.
struct DroppedConnection: Error {}

/// A request its route refused on its headers alone, its body unread (``Route/admits``).
struct RefusedBeforeReading: Error {
  let error: any Error
}
