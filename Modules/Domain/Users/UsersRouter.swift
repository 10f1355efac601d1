import Foundation
import Networking

/// The four `/v3/users` routes of the Sendbird Platform API (REQUIREMENTS A1, U3–U7): JSON with snake_case keys, the
/// application's token in the `Api-Token` header, ids percent-encoded in paths (U13).
public struct UsersRouter: Endpoint {
  /// Which call.
  public enum Route: Sendable {
    /// `POST /v3/users`.
    case create(UserCreationParams)
    /// `PUT /v3/users/{user_id}`.
    case update(UserUpdateParams)
    /// `GET /v3/users/{user_id}`.
    case get(userId: String)
    /// `GET /v3/users?nickname=…&limit=…`: the users whose nickname is exactly `nickname`.
    case list(nickname: String, limit: Int)
  }

  /// The application the call is for.
  public let application: SendbirdApplication
  /// Which call.
  public let route: Route

  /// The call `route` for `application`.
  public init(_ route: Route, application: SendbirdApplication) {
    self.route = route
    self.application = application
  }

  /// The application's Platform API.
  public var baseURL: URL { application.baseURL }

  /// `/v3/users` or `/v3/users/{user_id}`.
  public var path: EndpointPath {
    switch route {
    case .create, .list: ["v3", "users"]
    case .update(let params): ["v3", "users", params.userId]
    case .get(let userId): ["v3", "users", userId]
    }
  }

  /// `POST` to create, `PUT` to update, `GET` otherwise.
  public var method: HTTPMethod {
    switch route {
    case .create: .post
    case .update: .put
    case .get, .list: .get
    }
  }

  /// The `Api-Token` and the JSON we accept.
  public var headers: [String: String] { ["Api-Token": application.apiToken, "Accept": "application/json"] }

  /// The nickname and the limit of a search.
  public var query: [QueryItem] {
    guard case .list(let nickname, let limit) = route else { return [] }
    return [QueryItem("nickname", nickname), QueryItem("limit", String(limit))]
  }

  /// The new user, or the fields to change.
  public var body: HTTPBody {
    switch route {
    case .create(let params):
      // `profile_url` is a required key, empty when there is none.
      .json(CreateBody(userId: params.userId, nickname: params.nickname, profileURL: params.profileURL ?? ""))
    case .update(let params): .json(UpdateBody(nickname: params.nickname, profileURL: params.profileURL))
    case .get, .list: .empty
    }
  }

  private struct CreateBody: Encodable, Sendable {
    let userId: String
    let nickname: String
    let profileURL: String
    enum CodingKeys: String, CodingKey {
      case userId = "user_id"
      case nickname
      case profileURL = "profile_url"
    }
  }

  private struct UpdateBody: Encodable, Sendable {
    let nickname: String?
    let profileURL: String?
    enum CodingKeys: String, CodingKey {
      case nickname
      case profileURL = "profile_url"
    }
  }
}

extension UsersRouter {
  /// The body of `GET /v3/users`: a page of users.
  struct Page: Decodable, Sendable {
    let users: [User]
    let next: String?
  }
}
