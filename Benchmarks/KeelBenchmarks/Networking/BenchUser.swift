/// The Sandbox's user object (`GET /v3/users/{user_id}`), as an app would declare it: most of the documented fields,
/// so that decoding costs what it costs in an app.
struct BenchUser: Decodable, Sendable {
  let userID: String
  let nickname: String
  let profileURL: String
  let accessToken: String
  let isOnline: Bool
  let isActive: Bool
  let lastSeenAt: Int
  let createdAt: Int
  let metadata: [String: String]

  private enum CodingKeys: String, CodingKey {
    case userID = "user_id"
    case nickname
    case profileURL = "profile_url"
    case accessToken = "access_token"
    case isOnline = "is_online"
    case isActive = "is_active"
    case lastSeenAt = "last_seen_at"
    case createdAt = "created_at"
    case metadata
  }

  /// The id every Networking row creates and reads.
  static let id = "bench-user"

  /// The body of `POST /v3/users` that creates it.
  static let creationBody = #"{"user_id":"bench-user","nickname":"Bench","profile_url":""}"#

  /// The Sandbox's answer to `GET /v3/users/bench-user`, for the rows that have no server.
  static let responseBody = """
    {"user_id":"bench-user","nickname":"Bench","profile_url":"","access_token":"","is_online":false,\
    "is_active":true,"last_seen_at":0,"created_at":1700000000,"has_ever_logged_in":false,"metadata":{},\
    "discovery_keys":[],"preferred_languages":[]}
    """

  /// Throws unless this is the bench user: a response that decodes into someone else is a broken measurement.
  func check() throws {
    guard userID == Self.id else { throw BenchmarkError(description: "expected \(Self.id), got \(userID)") }
  }
}
