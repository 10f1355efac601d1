import ArgumentParser
import Domain
import Foundation
import KeelErrors
import Logging
import PostgresLimits

/// What a command runs with: its target, Keel's services wired for it, and its output.
struct CommandContext: Sendable {
  /// The options given.
  let options: GlobalOptions
  /// The server the command talks to.
  let target: Target
  /// Keel's services, built on first use.
  let dependencies: Dependencies
  /// Where results go.
  let output: Output

  /// The user manager, pointed at the target's application.
  func users() throws -> UserManager {
    let users = dependencies.users
    let applicationID = options.resolvedAppID ?? Target.sandboxApplicationID
    guard let token = options.resolvedAPIToken ?? (target.baseURL == nil ? nil : Target.sandboxAPIToken) else {
      throw CommandFailure(.usage, "The Sendbird cloud needs an API token: pass --api-token or set KEEL_API_TOKEN.")
    }
    try users.initApplication(applicationId: applicationID, apiToken: token)
    return users
  }

  /// Fails, after the result was printed, when the user cache could not keep what the command changed (a full disk,
  /// a read-only data directory): the server has the change, this machine's cache does not.
  func requireCacheWritten(_ users: UserManager) throws {
    guard let problem = users.store.writeFailure else { return }
    throw CommandFailure(
      .localStorage,
      "The server has the change, but the local user cache could not keep it: \(problem.clause). "
        + "Free space in, or fix the permissions of, \(options.dataDirectory.path).",
      followsResult: true)
  }

  /// Fails with ``CommandFailure/noBackend(for:)`` when the target has no chat backend (the Sendbird cloud): `what`
  /// needs one.
  func requireBackend(for what: String) throws {
    guard target.baseURL != nil else { throw CommandFailure.noBackend(for: what) }
  }
}

extension GlobalOptions {
  /// Runs `body` against the target these options choose, then stops an embedded Sandbox. An error becomes one
  /// sentence on standard error (and a JSON error with `--json`) and the exit status of its kind. A command that
  /// sends nothing (`sends: false`) starts no Sandbox. A `keel chat` command shares the data directory and its
  /// embedded Sandbox with the others (`sharing`), and no other command runs beside them.
  ///
  /// `check` runs first, before the directory is locked or a Sandbox started: input that cannot be right fails with
  /// nothing else said.
  ///
  /// `limits` names a PostgreSQL store that the user manager's limit is kept in (`--limiter-store`), shared with every
  /// process pointed at it.
  func run(
    sends: Bool = true, sharing: Target.Sharing = .none, limits: LimiterStoreOptions? = nil,
    check: () throws -> Void = {}, _ body: (CommandContext) async throws -> Void
  ) async throws {
    LoggingBootstrap.once()
    let output = Output(json: json)
    var target: Target?
    var store: PostgresGCRAStore?
    do {
      try check()
      try DataDirectoryLock.acquire(dataDirectory, mode: sharing == .none ? .exclusive : .shared)
      let resolved = try await Target.resolve(self, output: output, sends: sends, sharing: sharing)
      target = resolved
      var configuration = configuration(for: resolved)
      store = try limits?.store()
      if let store { configuration.usersLimiters = UserManagerLimiters(store: store, clock: ContinuousClock()) }
      let context = CommandContext(
        options: self, target: resolved, dependencies: Dependencies.live(configuration: configuration), output: output)
      try await body(context)
      await store?.shutdown()
      await resolved.stop()
    } catch {
      await store?.shutdown()
      await target?.stop()
      let failure = CommandFailure.from(error)
      output.fail(failure)
      throw ExitCode(failure.status.rawValue)
    }
  }

  private func configuration(for target: Target) -> KeelConfiguration {
    // Events are stored by `track` and delivered by `flush` alone: a command lives for moments, `track` starts no
    // Sandbox to deliver to, and `flush` says what became of the upload. (Cancelling an upload is safe on the NIO
    // transport; that it crashed URLSession on Linux is no longer the reason.)
    var configuration = KeelConfiguration(
      dataDirectory: dataDirectory, events: EventTrackerConfiguration(deliversOnItsOwn: false), logLevel: level,
      transport: target.transport, webSocketTransport: target.webSocket)
    if let url = target.baseURL {
      configuration.sendbirdBaseURL = url
      configuration.backendBaseURL = url
      configuration.eventsAPIToken = resolvedAPIToken ?? Target.sandboxAPIToken
    }
    return configuration
  }
}

/// Sends every log to standard error, its control characters escaped, once per process.
enum LoggingBootstrap {
  private static let done: Void = LoggingSystem.bootstrap(PrintableLogHandler.standardError)

  /// Bootstraps logging if it has not been.
  static func once() { _ = done }
}
