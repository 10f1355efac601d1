/// A user of a Sendbird application, as the Platform API returns it (`/v3/users`).
///
/// Decoded leniently: `nickname` and `profile_url` may be `null` or absent, and every other field the server sends
/// (`access_token`, `metadata`, …) is ignored.
public struct User: Hashable, Sendable, Codable {
  /// The user's id, unique in the application.
  public var userId: String
  /// The display name; `nil` when the server sent none.
  public var nickname: String?
  /// The profile image's URL, as a string; `nil` when the server sent none.
  public var profileURL: String?

  /// A user with `userId` and, when known, its nickname and profile URL.
  public init(userId: String, nickname: String? = nil, profileURL: String? = nil) {
    self.userId = userId
    self.nickname = nickname
    self.profileURL = profileURL
  }

  enum CodingKeys: String, CodingKey {
    case userId = "user_id"
    case nickname
    case profileURL = "profile_url"
  }
}
