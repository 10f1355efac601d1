import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// The `/v3/users` routes of the Sendbird Platform API subset (SandboxAPI §1), each tenant's data apart.
struct UsersAPI: Sendable {
  private let tenants = Locked<[String: UserDirectory]>([:])

  var routes: [Route] {
    [
      Route(.post, "/v3/users", handler: create),
      Route(.get, "/v3/users", handler: list),
      Route(.get, "/v3/users/:user_id", handler: get),
      Route(.put, "/v3/users/:user_id", handler: update),
      Route(.delete, "/v3/users/:user_id", handler: delete),
    ]
  }

  /// Forgets every tenant's users.
  func reset() { tenants.withLock { $0 = [:] } }

  /// Every tenant's users, to be kept between runs.
  var snapshot: [String: UserDirectory] { tenants.withLock { $0 } }

  /// Puts back the users of an earlier run.
  func restore(_ snapshot: [String: UserDirectory]) { tenants.withLock { $0 = snapshot } }

  private func create(_ request: SandboxRequest) throws -> SandboxResponse {
    let body = try JSONObject(request.body)
    let userID = try body.requiredString("user_id", max: 80, allowEmpty: false)
    let nickname = try body.requiredString("nickname", max: 80)
    let profileURL = try body.requiredString("profile_url", max: 2_048)
    let metadata = try body.optionalMetadata() ?? [:]
    let accessToken = try body.optionalBool("issue_access_token") == true ? Self.newAccessToken() : ""
    let createdAt = Int(Date().timeIntervalSince1970)
    let user = tenants.withLock { tenants in
      tenants[request.tenant, default: UserDirectory()].insert(id: userID) { sequence in
        PlatformUser(
          userID: userID, nickname: nickname, profileURL: profileURL, accessToken: accessToken, metadata: metadata,
          createdAt: createdAt, sequence: sequence)
      }
    }
    guard let user else { throw PlatformError.userExists }
    return .json(user.json)
  }

  private func list(_ request: SandboxRequest) throws -> SandboxResponse {
    let limit = try Self.limit(request.query["limit"])
    let after = try Self.sequence(fromPageToken: request.query["token"])
    let nickname = request.query["nickname"]
    let prefix = request.query["nickname_startswith"]
    let ids = request.query["user_ids"].map { Set($0.split(separator: ",").map(String.init)) }
    let (users, more) = tenants.withLock { tenants in
      (tenants[request.tenant] ?? UserDirectory()).page(after: after, limit: limit) { user in
        (nickname.map { user.nickname == $0 } ?? true) && (prefix.map { user.nickname.hasPrefix($0) } ?? true)
          && (ids.map { $0.contains(user.userID) } ?? true)
      }
    }
    let next = more ? users.last.map { Self.pageToken(after: $0.sequence) } ?? "" : ""
    return .json(["users": .array(users.map(\.json)), "next": .string(next)])
  }

  private func get(_ request: SandboxRequest) throws -> SandboxResponse {
    let userID = try Self.userID(request)
    guard let user = tenants.withLock({ $0[request.tenant]?[userID] }) else { throw PlatformError.userNotFound }
    return SandboxResponse(status: .ok, body: user.encoded, headers: [.contentType: "application/json"])
  }

  private func update(_ request: SandboxRequest) throws -> SandboxResponse {
    let userID = try Self.userID(request)
    let body = try JSONObject(request.body, emptyIsObject: true)
    let nickname = try body.optionalString("nickname", max: 80)
    let profileURL = try body.optionalString("profile_url", max: 2_048)
    let metadata = try body.optionalMetadata()
    let issueToken = try body.optionalBool("issue_access_token") == true
    let updated: PlatformUser? = tenants.withLock { tenants in
      guard var user = tenants[request.tenant]?[userID] else { return nil }
      if let nickname { user.nickname = nickname }
      if let profileURL { user.profileURL = profileURL }
      if let metadata { user.metadata = metadata }
      if issueToken { user.accessToken = Self.newAccessToken() }
      tenants[request.tenant]?[userID] = user
      return user
    }
    guard let updated else { throw PlatformError.userNotFound }
    return .json(updated.json)
  }

  private func delete(_ request: SandboxRequest) throws -> SandboxResponse {
    let userID = try Self.userID(request)
    let removed = tenants.withLock { tenants in
      guard tenants[request.tenant]?[userID] != nil else { return false }
      tenants[request.tenant]?[userID] = nil
      return true
    }
    guard removed else { throw PlatformError.userNotFound }
    return .json([:])
  }

  // MARK: - Parameters

  private static func userID(_ request: SandboxRequest) throws -> String {
    guard let userID = request.parameter("user_id"), !userID.isEmpty else { throw PlatformError.invalid("user_id") }
    return userID
  }

  private static func limit(_ text: String?) throws -> Int {
    guard let text else { return 10 }
    guard let limit = Int(text), (1...100).contains(limit) else { throw PlatformError.invalidLimit }
    return limit
  }

  private static let pageTokenPrefix = "keel-page:"

  /// Opaque to clients: the creation sequence of the last user on the previous page.
  private static func pageToken(after sequence: Int) -> String {
    Data((pageTokenPrefix + String(sequence)).utf8).base64EncodedString()
  }

  private static func sequence(fromPageToken token: String?) throws -> Int {
    guard let token, !token.isEmpty else { return 0 }
    guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
      text.hasPrefix(pageTokenPrefix), let sequence = Int(text.dropFirst(pageTokenPrefix.count)), sequence >= 0
    else { throw PlatformError.invalidPageToken }
    return sequence
  }

  private static func newAccessToken() -> String {
    (0..<40).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
  }
}
