import Chat
import Domain

/// Why a screen's request did not happen, typed for the screen and worded for its user: what the settings, profile
/// and sign-up screens show when the server refuses (not the owner, gone, taken) or cannot be reached.
///
/// ```swift
/// import Chat
///
/// let failure = ScreenFailure(ChatError(.invalidInput, "A channel's name has 1 to 80 characters."), doing: "rename")
/// print(failure.kind, failure.message)   // invalidInput A channel's name has 1 to 80 characters.
/// ```
public struct ScreenFailure: Error, Hashable, Sendable {
  /// What kind of refusal it is: what the screen may do about it.
  public enum Kind: Hashable, Sendable {
    /// The input was refused before anything was sent; the message says what to change.
    case invalidInput
    /// The user may not do this (not the owner, not a member): the server's `E403`.
    case notAllowed
    /// What it was about no longer exists, or no account has that email: `E404`.
    case notFound
    /// The name or the email is taken: `E409`.
    case conflict
    /// The server could not be reached, or failed: trying again may work.
    case unreachable
    /// The session ended: sign in again.
    case signedOut
    /// Anything else; the message says what.
    case other
  }

  /// What kind of refusal it is.
  public var kind: Kind
  /// A sentence for the user.
  public var message: String

  /// A failure of `kind` that says `message`.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// The failure of a request for `what` (a verb phrase: "rename the channel") that threw `error`.
  public init(_ error: any Error, doing what: String) {
    if let error = error as? ChatError {
      self = Self.chat(error, doing: what)
    } else if let error = error as? SessionError {
      self = Self.session(error, doing: what)
    } else {
      self.init(.other, "Cannot \(what): \(error)")
    }
  }

  private static func chat(_ error: ChatError, doing what: String) -> ScreenFailure {
    switch error.kind {
    case .invalidInput: return ScreenFailure(.invalidInput, error.description)
    case .notSignedIn: return ScreenFailure(.signedOut, "Sign in again to \(what).")
    case .notPermitted: return ScreenFailure(.notAllowed, error.description)
    case .notFound: return ScreenFailure(.notFound, error.description)
    case .refused: return refusal(error.requestFailure, doing: what, otherwise: error.description)
    case .requestFailed: return unreachable(error.requestFailure, doing: what, otherwise: error.description)
    default: return ScreenFailure(.other, error.description)
    }
  }

  private static func session(_ error: SessionError, doing what: String) -> ScreenFailure {
    switch error.kind {
    case .invalidInput: return ScreenFailure(.invalidInput, error.description)
    case .loginRefused: return ScreenFailure(.notAllowed, "The email or password is wrong.")
    case .requestFailed:
      if error.requestFailure?.serverCode != nil {
        return refusal(error.requestFailure, doing: what, otherwise: error.description)
      }
      return unreachable(error.requestFailure, doing: what, otherwise: error.description)
    default: return ScreenFailure(.other, error.description)
    }
  }

  private static func refusal(_ failure: RequestFailure?, doing what: String, otherwise: String) -> ScreenFailure {
    switch failure?.serverCode {
    case "E403": ScreenFailure(.notAllowed, "You are not allowed to \(what): only its owner may.")
    case "E404": ScreenFailure(.notFound, "Cannot \(what): it no longer exists, or there is no such account.")
    case "E409": ScreenFailure(.conflict, "Cannot \(what): that name or email is already taken.")
    case "E01": ScreenFailure(.invalidInput, "Cannot \(what): the server refused the input. \(otherwise)")
    default: ScreenFailure(.other, otherwise)
    }
  }

  private static func unreachable(_ failure: RequestFailure?, doing what: String, otherwise: String) -> ScreenFailure {
    if failure?.kind == .sessionExpired { return ScreenFailure(.signedOut, "Sign in again to \(what).") }
    if failure?.kind == .server { return ScreenFailure(.other, otherwise) }
    return ScreenFailure(.unreachable, "Cannot reach the server to \(what). Check the connection and try again.")
  }
}

/// The effect of one request of a screen: its response, or its failure worded for doing `what` (a verb phrase).
func request<Client: Sendable, Action: Sendable>(
  _ what: String, _ client: Client,
  response: @escaping @Sendable (Client) async throws -> Action, failed: @escaping @Sendable (ScreenFailure) -> Action
) -> Effect<Action> {
  .run { send in
    await send(try await response(client))
  } catch: { error, send in
    await send(failed(ScreenFailure(error, doing: what)))
  }
}
