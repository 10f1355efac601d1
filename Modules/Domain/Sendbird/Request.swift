/// A call that an ``SBNetworkClient`` can send, and what it answers (Sendbird-compatible surface, REQUIREMENTS U12).
///
/// `Sendable` is required by Swift 6: a request and its response cross from the caller to the client's tasks and
/// back to the callback queue. ``SendbirdNetworkClient`` sends the requests that also conform to
/// ``SendbirdRequest``, such as ``GetUserRequest``.
public protocol Request: Sendable {
  /// What the call answers.
  associatedtype Response: Sendable
}

/// The result of a call that answers one user.
public typealias UserResult = Result<SBUser, any Error>

/// The result of a call that answers users.
public typealias UsersResult = Result<[SBUser], any Error>
