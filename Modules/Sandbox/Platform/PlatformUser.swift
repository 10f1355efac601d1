import Foundation
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

  /// ``json`` encoded, the same bytes as `json.encoded` (keys in ascending order), written field by field: the user
  /// lookup is the route every client and test calls most, and building the dictionary and sorting its keys was most
  /// of its handler's time.
  var encoded: Data {
    var writer = JSONWriter(sortsKeys: true)
    writer.raw("{\"access_token\":")
    writer.string(accessToken)
    writer.raw(",\"created_at\":")
    writer.write(.number(Double(createdAt)))
    writer.raw(",\"discovery_keys\":[],\"has_ever_logged_in\":false,\"is_active\":true,\"is_online\":false")
    writer.raw(",\"last_seen_at\":0,\"metadata\":")
    writer.object(metadata.mapValues { .string($0) })
    writer.raw(",\"nickname\":")
    writer.string(nickname)
    writer.raw(",\"preferred_languages\":[],\"profile_url\":")
    writer.string(profileURL)
    writer.raw(",\"user_id\":")
    writer.string(userID)
    writer.raw("}")
    return Data(writer.bytes)
  }

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
