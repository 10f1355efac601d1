import KeelJSON

/// A user of the Sendbird Platform API, as the Sandbox stores and returns it.
struct PlatformUser: Sendable, Hashable, Codable {
  let userID: String
  var nickname: String
  var profileURL: String
  var accessToken: String
  var metadata: [String: String]
  let createdAt: Int
  /// Creation order within the tenant: listings follow it, and page tokens point into it.
  let sequence: Int

  /// The user object of the contract, snake_case, every documented field present.
  var json: JSONValue {
    [
      "user_id": .string(userID),
      "nickname": .string(nickname),
      "profile_url": .string(profileURL),
      "access_token": .string(accessToken),
      "is_online": false,
      "is_active": true,
      "last_seen_at": 0,
      "created_at": .number(Double(createdAt)),
      "has_ever_logged_in": false,
      "metadata": .object(metadata.mapValues { .string($0) }),
      "discovery_keys": [],
      "preferred_languages": [],
    ]
  }
}
