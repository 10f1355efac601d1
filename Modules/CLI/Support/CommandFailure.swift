import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors
import Networking
import Persistence
import RateLimiting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An expected failure of a command: one sentence saying what went wrong, why and what to do, and its exit status.
struct CommandFailure: Error, CustomStringConvertible {
  /// The exit status.
  var status: ExitStatus
  /// One sentence for the user.
  var description: String
  /// Whether the command already printed its result (with `--json`, the one document on standard output), so that
  /// the failure goes to standard error alone.
  var followsResult = false

  /// A command that followed something live (`tail`, `watch`) outlived its session.
  static let sessionEnded = CommandFailure(
    .auth, "The session ended: sign in again with keel auth login --email EMAIL.", followsResult: true)

  init(_ status: ExitStatus, _ description: String, followsResult: Bool = false) {
    self.status = status
    self.description = description
    self.followsResult = followsResult
  }

  /// The failure `error` means for a user of the CLI.
  static func from(_ error: any Error) -> CommandFailure {
    switch error {
    case let failure as CommandFailure: failure
    case let error as UserManagerError: from(error)
    case let error as SessionError: from(error)
    case let error as EventTrackerError: from(error)
    case let error as ChatError: from(error)
    case let error as ImageLoaderError:
      error.requestFailure.map(from)
        ?? CommandFailure(.failure, "Cannot load the image: \(String(describing: error).clause).")
    case let error as PersistenceError:
      CommandFailure(
        .localStorage,
        "Cannot use the data directory: \(String(describing: error).clause). Check --data-dir and its permissions.")
    case is CancellationError: CommandFailure(.failure, "Stopped.")
    default: CommandFailure(.failure, "\(error)")
    }
  }

  private static func from(_ error: UserManagerError) -> CommandFailure {
    switch error.kind {
    case .validation: CommandFailure(.invalidInput, "\(error.description.clause). Nothing was sent.")
    case .notInitialized: CommandFailure(.usage, "No application: pass --app-id, or --base-url for a Sandbox.")
    case .requestFailed: error.requestFailure.map(from) ?? CommandFailure(.failure, error.description)
    case .partialFailure:
      error.failures.first.map { first in
        var failure = from(first.error)
        failure.description = "\(error.description.clause)."
        return failure
      } ?? CommandFailure(.failure, error.description)
    default: CommandFailure(.failure, error.description)
    }
  }

  private static func from(_ error: SessionError) -> CommandFailure {
    switch error.kind {
    case .invalidInput: CommandFailure(.invalidInput, error.description)
    case .loginRefused: CommandFailure(.auth, "The email or password is wrong (the server answered E03).")
    case .providerTokenRefused: CommandFailure(.auth, error.description)
    case .requestFailed where error.requestFailure?.serverCode == "E409":
      CommandFailure(.server, "\(error.description.clause): sign in to it with keel auth login instead.")
    case .storage: CommandFailure(.localStorage, error.description)
    case .notConfigured: noBackend(for: "sign in")
    default: error.requestFailure.map(from) ?? CommandFailure(.network, error.description)
    }
  }

  /// What a failed request of any service means: the same words whichever service sent it.
  private static func from(_ error: RequestFailure) -> CommandFailure {
    switch error.kind {
    case .transport:
      CommandFailure(
        .network, "Cannot reach the server: \(transportReason(error)). Check the server's address and the connection.")
    case .rateLimited:
      // A shared limit whose store (PostgreSQL, --limiter-store) could not be used says why: that is what to fix.
      if let refusal = (error.underlying as? NetworkError)?.underlying as? RateLimitError,
        refusal.kind == .storeUnavailable
      {
        CommandFailure(.rateLimited, "\(refusal.description.clause). Nothing was sent; try again once it answers.")
      } else {
        CommandFailure(.rateLimited, "The client-side rate limit refused the request, which was not sent; try again.")
      }
    case .sessionExpired:
      CommandFailure(.auth, "Not signed in, or the session expired: sign in with `keel auth login`.")
    case .invalidRequest: CommandFailure(.invalidInput, "\(error.description.clause). Nothing was sent.")
    // The Platform API's "not found" is an answer about the input, not a server failing.
    case .server where error.serverCode == "400201":
      CommandFailure(.notFound, "The server has no such user (400201: \(error.serverMessage?.clause ?? "not found")).")
    case .server where error.statusCode == 404:
      CommandFailure(.notFound, "The server has nothing at that address (HTTP 404).")
    case .server where error.serverCode == nil && (error.statusCode == 401 || error.statusCode == 403):
      CommandFailure(.auth, "The server refused the credentials: \(error.description.clause). Check --api-token.")
    default: CommandFailure(.server, "\(error.description.clause).")
    }
  }

  /// What went wrong on the way, in words: `connection refused` rather than `cannotConnectToHost`.
  static func transportReason(_ error: RequestFailure) -> String {
    let host = error.urlError?.failingURL?.host.map { " (\($0))" } ?? ""
    switch error.urlError?.code {
    case .cannotConnectToHost?: return "the connection was refused\(host)"
    case .cannotFindHost?, .dnsLookupFailed?: return "the host name is unknown\(host)"
    case .timedOut?: return "it did not answer in time\(host)"
    case .networkConnectionLost?: return "the connection was lost\(host)"
    case .badServerResponse?: return "the connection closed without an answer\(host)"
    case .notConnectedToInternet?: return "this machine is offline"
    case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?,
      .serverCertificateNotYetValid?, .serverCertificateHasUnknownRoot?:
      return "a secure connection could not be made\(host)"
    case .some: return "the transfer failed\(host)"
    case nil: return error.description.clause
    }
  }

  /// What a command that needs a chat backend says without one (a usage error): `Cannot <what>: no chat backend is
  /// configured: pass --base-url (the Sendbird cloud has no such API).`
  static func noBackend(for what: String) -> CommandFailure {
    CommandFailure(
      .usage, "Cannot \(what): no chat backend is configured: pass --base-url (the Sendbird cloud has no such API).")
  }

  private static func from(_ error: ChatError) -> CommandFailure {
    switch error.kind {
    case .invalidInput: return CommandFailure(.invalidInput, error.description)
    case .notSignedIn:
      return CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
    case .storage: return CommandFailure(.localStorage, error.description)
    case .notConfigured: return noBackend(for: "use the chat")
    case .notFound: return CommandFailure(.notFound, error.description)
    case .notPermitted: return CommandFailure(.auth, error.description)
    case .ambiguous: return CommandFailure(.invalidInput, error.description)
    default:
      guard let failure = error.requestFailure else { return CommandFailure(.failure, error.description) }
      // Not the owner, or not a member: the server's reason, as a permission refused.
      if failure.statusCode == 403 { return CommandFailure(.auth, "\(error.description.clause).") }
      var mapped = from(failure)
      // The server's own words say more than the status's ("not a member of c3" rather than "nothing there").
      if failure.kind == .server || failure.kind == .invalidRequest {
        mapped.description = "\(error.description.clause)."
      }
      return mapped
    }
  }

  private static func from(_ error: EventTrackerError) -> CommandFailure {
    switch error.kind {
    case .invalidEvent: CommandFailure(.invalidInput, "\(error.description.clause). Nothing was stored.")
    case .storage: CommandFailure(.localStorage, error.description)
    default: CommandFailure(.failure, error.description)
    }
  }
}
