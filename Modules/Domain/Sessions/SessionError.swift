@_exported import KeelErrors

/// Why signing in or out failed, or an authenticated call of the session manager's, in a form a caller can act on.
///
/// A struct rather than an enum so that kinds can be added without breaking anyone's `switch`: compare ``kind``, then
/// read ``requestFailure`` for what the server or the transport said. A cancelled call throws `CancellationError`.
///
/// ```swift
/// import Foundation
///
/// let configuration = KeelConfiguration(
///   backendBaseURL: URL(string: "https://chat.example.com")!,
///   dataDirectory: URL(fileURLWithPath: "myapp-data", isDirectory: true))
/// let sessions = Dependencies.live(configuration: configuration).sessions
/// do {
///   try await sessions.login(email: "demo@keel.dev", password: "demo-password")
/// } catch let error as SessionError where error.kind == .loginRefused {
///   print("Wrong email or password.")
/// }
/// ```
///
/// ``SessionManager/me()`` throws `Kind.requestFailed`, with the kind `RequestFailure.Kind.sessionExpired` once
/// the session has ended. Calls an app sends itself through ``SessionManager/client`` throw that `HTTPClient`'s
/// `NetworkError`.
public struct SessionError: ServiceError {
  /// The kind of failure.
  public typealias Kind = ErrorKind<SessionError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// What the server or the transport said, for `Kind.loginRefused`, `Kind.requestFailed` and
  /// `Kind.revocationFailed`; its ``RequestFailure/serverCode`` is the backend's code, such as `E03`.
  public var requestFailure: RequestFailure?
  /// The error that caused this one, if any (for `Kind.storage`, the secure store's; for a failed request, the
  /// HTTP client's).
  public var underlying: (any Error)?
  /// What was wrong with a provider's identity token, for `Kind.providerTokenRefused`.
  public var providerRefusal: ProviderTokenRefusal?

  /// An error of `kind` described by `description`, a complete sentence.
  public init(
    _ kind: Kind, _ description: String, requestFailure: RequestFailure? = nil, underlying: (any Error)? = nil
  ) {
    self.kind = kind
    self.description = description
    self.requestFailure = requestFailure
    self.underlying = underlying ?? requestFailure?.underlying
  }

  static func requestFailed(_ failure: RequestFailure) -> SessionError {
    SessionError(.requestFailed, failure.description, requestFailure: failure)
  }
}

extension ErrorKind where Owner == SessionError {
  /// The input cannot be right (an empty email or password); nothing was sent.
  public static var invalidInput: Self { Self("invalidInput") }
  /// The server refused the email and password (`E03`).
  public static var loginRefused: Self { Self("loginRefused") }
  /// A request failed on the way: no connection, a server error, a response that cannot be read, the session
  /// over; ``SessionError/requestFailure`` says which.
  public static var requestFailed: Self { Self("requestFailed") }
  /// The secure store could not keep or wipe the tokens.
  public static var storage: Self { Self("storage") }
  /// No chat backend is configured (`KeelConfiguration.backendBaseURL` is `nil`); nothing was sent.
  public static var notConfigured: Self { Self("notConfigured") }
  /// Signed out on this device, but the server could not be told, so the refresh token stays valid there until it
  /// expires.
  public static var revocationFailed: Self { Self("revocationFailed") }
  /// The backend refused a provider's identity token (Apple's, Kakao's); ``SessionError/providerRefusal`` says why.
  public static var providerTokenRefused: Self { Self("providerTokenRefused") }
}

/// Why a backend refused a provider's identity token (SandboxAPI §2's E21 to E25).
public enum ProviderTokenRefusal: String, Hashable, Sendable {
  /// Not a token of the provider's: not a JWT, a key the provider does not publish, another issuer (E21).
  case notTheProvidersToken
  /// The signature does not verify with the provider's published key (E22).
  case badSignature
  /// The token is for another app: its audience is not the backend's client id (E23).
  case wrongAudience
  /// The token has expired: get a new one from the provider (E24).
  case expired
  /// The token's nonce is not the one the app sent (E25): a replayed or mixed-up token.
  case nonceMismatch

  /// The refusal a backend's error code means, or `nil` for another code.
  init?(serverCode: String?) {
    switch serverCode {
    case "E21": self = .notTheProvidersToken
    case "E22": self = .badSignature
    case "E23": self = .wrongAudience
    case "E24": self = .expired
    case "E25": self = .nonceMismatch
    default: return nil
    }
  }
}
