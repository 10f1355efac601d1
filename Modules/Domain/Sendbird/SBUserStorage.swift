/// A thread-safe store of users (Sendbird-compatible surface, REQUIREMENTS U1, U12).
public protocol SBUserStorage: Sendable {
  /// Stores `user`, replacing the stored user with the same id.
  func upsertUser(_ user: SBUser)
  /// Every stored user.
  func getUsers() -> [SBUser]
  /// The stored users whose nickname is exactly `nickname`.
  func getUsers(for nickname: String) -> [SBUser]
  /// The stored user with id `userId`, if any.
  func getUser(for userId: String) -> SBUser?
}
