import Foundation
import Networking

/// A ``Request`` that ``SendbirdNetworkClient`` knows how to send: its route on the Platform API and how to read the
/// answer. ``CreateUserRequest``, ``UpdateUserRequest``, ``GetUserRequest`` and ``GetUsersRequest`` are the four
/// user calls; conform your own types for other calls on `/v3/users`.
public protocol SendbirdRequest: Request {
  /// The route to send.
  var route: UsersRouter.Route { get }
  /// Reads a successful response.
  func decode(_ response: RawResponse) throws -> Response
}

/// `POST /v3/users`: creates a user.
public struct CreateUserRequest: SendbirdRequest {
  /// What the call answers.
  public typealias Response = SBUser
  /// The user to create.
  public var params: UserCreationParams
  /// A request to create the user `params` describes.
  public init(params: UserCreationParams) { self.params = params }
  /// `create`.
  public var route: UsersRouter.Route { .create(params) }
  /// The created user.
  public func decode(_ response: RawResponse) throws -> SBUser { try response.user() }
}

/// `PUT /v3/users/{user_id}`: updates a user.
public struct UpdateUserRequest: SendbirdRequest {
  /// What the call answers.
  public typealias Response = SBUser
  /// What to change.
  public var params: UserUpdateParams
  /// A request to apply `params`.
  public init(params: UserUpdateParams) { self.params = params }
  /// `update`.
  public var route: UsersRouter.Route { .update(params) }
  /// The updated user.
  public func decode(_ response: RawResponse) throws -> SBUser { try response.user() }
}

/// `GET /v3/users/{user_id}`: one user, from the server (no cache).
public struct GetUserRequest: SendbirdRequest {
  /// What the call answers.
  public typealias Response = SBUser
  /// The user's id.
  public var userId: String
  /// A request for the user `userId`.
  public init(userId: String) { self.userId = userId }
  /// `get`.
  public var route: UsersRouter.Route { .get(userId: userId) }
  /// The user the server answered with.
  public func decode(_ response: RawResponse) throws -> SBUser { try response.user() }
}

/// `GET /v3/users?nickname=…&limit=…`: the users whose nickname is exactly `nickname`, from the server (no cache).
public struct GetUsersRequest: SendbirdRequest {
  /// What the call answers.
  public typealias Response = [SBUser]
  /// The nickname to match exactly.
  public var nickname: String
  /// The most users answered, 1–100.
  public var limit: Int
  /// A request for at most `limit` users named `nickname`.
  public init(nickname: String, limit: Int = 100) {
    self.nickname = nickname
    self.limit = limit
  }
  /// `list`.
  public var route: UsersRouter.Route { .list(nickname: nickname, limit: limit) }
  /// The users the server answered with, in its order.
  public func decode(_ response: RawResponse) throws -> [SBUser] {
    try JSONDecoder().decode(UsersRouter.Page.self, from: response.body).users
  }
}

extension RawResponse {
  fileprivate func user() throws -> User { try JSONDecoder().decode(User.self, from: body) }
}
