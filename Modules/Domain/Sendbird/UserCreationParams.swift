/// What it takes to create a user (Sendbird-compatible surface, REQUIREMENTS U12).
public struct UserCreationParams: Sendable, Hashable {
  /// The new user's id: 1–80 characters, unique in the application.
  public var userId: String
  /// The display name: at most 80 characters; may be empty.
  public var nickname: String
  /// The profile image's URL: at most 2048 characters; `nil` sends an empty one.
  public var profileURL: String?

  /// The parameters of one creation.
  public init(userId: String, nickname: String, profileURL: String? = nil) {
    self.userId = userId
    self.nickname = nickname
    self.profileURL = profileURL
  }
}
