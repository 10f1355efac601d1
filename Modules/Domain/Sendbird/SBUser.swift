/// A user, as the Sendbird-compatible surface hands it out (REQUIREMENTS U12). ``User`` is the same data in the rest
/// of Keel.
public struct SBUser: Sendable, Hashable {
  /// The user's id.
  public var userId: String
  /// The display name, if any.
  public var nickname: String?
  /// The profile image's URL, if any.
  public var profileURL: String?

  /// A user with `userId` and, when known, its nickname and profile URL.
  public init(userId: String, nickname: String? = nil, profileURL: String? = nil) {
    self.userId = userId
    self.nickname = nickname
    self.profileURL = profileURL
  }
}

extension SBUser {
  /// The same user as a ``User``.
  public var user: User { User(userId: userId, nickname: nickname, profileURL: profileURL) }

  /// `user` on the Sendbird-compatible surface.
  public init(_ user: User) {
    self.init(userId: user.userId, nickname: user.nickname, profileURL: user.profileURL)
  }
}
