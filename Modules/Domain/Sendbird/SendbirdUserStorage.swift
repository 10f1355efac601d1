/// The Sendbird-compatible view of a ``UserStore`` (REQUIREMENTS U1, U12): thread-safe, read-your-writes.
public final class SendbirdUserStorage: SBUserStorage {
  /// The store underneath.
  public let store: UserStore

  /// A storage kept in memory only.
  public convenience init() {
    self.init(store: UserStore())
  }

  /// The Sendbird-compatible view of `store`.
  public init(store: UserStore) {
    self.store = store
  }

  /// Stores `user`, replacing the stored user with the same id.
  public func upsertUser(_ user: SBUser) { store.upsert(user) }

  /// Every stored user, in the order they were first stored.
  public func getUsers() -> [SBUser] { store.users() }

  /// The stored users whose nickname is exactly `nickname`.
  public func getUsers(for nickname: String) -> [SBUser] { store.users(nickname: nickname) }

  /// The stored user with id `userId`, if any.
  public func getUser(for userId: String) -> SBUser? { store.user(id: userId) }

  /// Removes every stored user.
  public func removeAll() { store.removeAll() }
}
