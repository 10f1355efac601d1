/// What to change about a user; `nil` fields stay as they are (Sendbird-compatible surface, REQUIREMENTS U12).
public struct UserUpdateParams: Sendable, Hashable {
  /// The id of the user to update.
  public var userId: String
  /// The new display name, at most 80 characters; `nil` keeps the current one.
  public var nickname: String?
  /// The new profile image URL, at most 2048 characters; `nil` keeps the current one.
  public var profileURL: String?

  /// The parameters of one update.
  public init(userId: String, nickname: String? = nil, profileURL: String? = nil) {
    self.userId = userId
    self.nickname = nickname
    self.profileURL = profileURL
  }
}
