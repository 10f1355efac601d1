import Networking

/// Why signing in or out failed, in a form a caller can act on.
///
/// A struct rather than an enum, as `NetworkError` is, so that kinds can be added without breaking anyone's `switch`:
/// compare ``kind``, then read ``networkError`` for what the server or the transport said.
///
/// ```swift
/// do {
///   try await sessions.login(email: email, password: password)
/// } catch let error as SessionError where error.kind == .loginRefused {
///   showWrongPassword()
/// }
/// ```
///
/// Authenticated calls made through ``SessionManager/client`` (``SessionManager/me()`` among them) throw
/// `NetworkError` as every `HTTPClient` does; a session that ended shows there as its `sessionExpired` kind.
public struct SessionError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The input cannot be right (an empty email or password); nothing was sent.
    public static let invalidInput = Kind("invalidInput")
    /// The server refused the email and password (`E03`).
    public static let loginRefused = Kind("loginRefused")
    /// Signing in failed on the way: no connection, a server error, a response that cannot be read.
    public static let network = Kind("network")
    /// The secure store could not keep or wipe the tokens.
    public static let storage = Kind("storage")
    /// Signed out on this device, but the server could not be told, so the refresh token stays valid there until it
    /// expires.
    public static let revocationFailed = Kind("revocationFailed")

    /// The kind's name, for example `loginRefused`.
    public var description: String { name }
  }

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// What the server or the transport said, for ``Kind/loginRefused``, ``Kind/network`` and
  /// ``Kind/revocationFailed``; its `serverError` has the backend's code, such as `E03`.
  public var networkError: NetworkError?
  /// The error that caused this one, if any (for ``Kind/storage``, the secure store's).
  public var underlying: (any Error)?

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String, networkError: NetworkError? = nil, underlying: (any Error)? = nil) {
    self.kind = kind
    self.description = description
    self.networkError = networkError
    self.underlying = underlying ?? networkError
  }
}
