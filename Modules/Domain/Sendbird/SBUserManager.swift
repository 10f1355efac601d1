/// Creates, updates and finds the users of one application, with a local cache (Sendbird-compatible surface,
/// REQUIREMENTS U2–U9, U12). Every completion handler is called once, on a background queue, one at a time.
public protocol SBUserManager: Sendable {
  /// The client that sends the calls.
  var networkClient: any SBNetworkClient { get }
  /// The cache of users.
  var userStorage: any SBUserStorage { get }
  /// Points the manager at an application; a different application than last time (even in an earlier run of the
  /// process) first deletes everything stored for the previous one.
  func initApplication(applicationId: String, apiToken: String)
  /// Creates a user, then caches it.
  func createUser(params: UserCreationParams, completionHandler: (@Sendable (UserResult) -> Void)?)
  /// Creates up to 10 users, one per second, and answers them in input order.
  func createUsers(params: [UserCreationParams], completionHandler: (@Sendable (UsersResult) -> Void)?)
  /// Updates a user, then caches it.
  func updateUser(params: UserUpdateParams, completionHandler: (@Sendable (UserResult) -> Void)?)
  /// The user with id `userId`: from the cache, or else from the server (then cached).
  func getUser(userId: String, completionHandler: (@Sendable (UserResult) -> Void)?)
  /// The users whose nickname is exactly `nicknameMatches` (at most 100), then cached.
  func getUsers(nicknameMatches: String, completionHandler: (@Sendable (UsersResult) -> Void)?)
}
