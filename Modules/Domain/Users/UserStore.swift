import Foundation
import KeelConcurrency
import KeelFiles
import Logging

/// The user cache: thread-safe, read-your-writes, and optionally kept in a file so that it survives a restart
/// (REQUIREMENTS U1, U2).
///
/// - **Reads** run concurrently under a reader-writer lock; **writes** are exclusive. A write is visible to every
///   read that starts after it returns: there is no queue or task between them.
/// - **The file** is rewritten after each write, outside the lock (readers never wait for the disk), newest snapshot
///   wins: a write that finds a newer snapshot already on disk skips its own. Writing is atomic (temp file and
///   rename), so a crash leaves the previous or the new file, never a torn one. A failed write is logged, and the
///   memory copy stays right; the cache is a cache.
///
/// ```swift
/// import Foundation
/// import Logging
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let store = UserStore(file: dataDirectory.appendingPathComponent("users.json"), logger: Logger(label: "users"))
/// store.upsert(User(userId: "alice", nickname: "Alice"))
/// let alice = store.user(id: "alice")        // the user just written, from any thread
/// ```
public final class UserStore: Sendable {
  private struct Snapshot {
    var applicationId: String?
    var users: [String: Entry] = [:]
    var nextOrder = 0
    var version = 0
  }

  private struct Entry {
    var user: User
    let order: Int
  }

  private let state: ReadWriteLocked<Snapshot>
  /// The newest snapshot version on disk, and the last write's failure (`nil` once a write succeeds).
  private let written = Locked<(version: Int, failure: String?)>((0, nil))
  private let file: URL?
  private let logger: Logger

  /// A store kept in memory only.
  public convenience init() {
    self.init(file: nil)
  }

  /// A store kept in `file` too, starting from what `file` holds; an unreadable file starts it empty.
  ///
  /// - Parameters:
  ///   - file: Where the users are kept between runs; `nil` keeps them in memory only.
  ///   - logger: Where a failure to read or write the file is reported.
  public init(file: URL?, logger: Logger = Logger(label: "keel.users", factory: { _ in SwiftLogNoOpLogHandler() })) {
    self.file = file
    self.logger = logger
    // Made once, here: a folder removed while the app runs (a data directory wiped, a demo's folder cleaned up) is
    // not made again behind its remover's back; the writes fail, and `writeFailure` says so.
    if let file {
      do {
        try OwnerOnlyFiles.makeDirectory(file.deletingLastPathComponent(), ownedByKeel: false)
      } catch {
        logger.warning("The user cache's directory cannot be made: \(error)")
      }
    }
    let stored = Self.load(file, logger: logger)
    var snapshot = Snapshot(applicationId: stored.applicationId)
    for user in stored.users {
      snapshot.users[user.userId] = Entry(user: user, order: snapshot.nextOrder)
      snapshot.nextOrder += 1
    }
    state = ReadWriteLocked(snapshot)
  }

  /// Why the last write of the file failed (a full disk, a read-only directory), or `nil` when it succeeded or there
  /// is no file. The users are in memory either way; a caller that promised to keep them says so.
  public var writeFailure: String? { written.withLock { $0.failure } }

  /// Stores `user`, replacing the stored user with the same id (which keeps its place in ``users()``).
  public func upsert(_ user: User) {
    upsert(contentsOf: [user])
  }

  /// Stores `users` in one write, each replacing the stored user with the same id.
  public func upsert(contentsOf users: [User]) {
    upsert(contentsOf: users, ifOwnedBy: nil)
  }

  /// Stores `users` in one write if the store belongs to `applicationId` (any application when `nil`); returns
  /// whether it did. Checked and written under one lock, so a ``claim(for:)`` cannot slip in between.
  @discardableResult
  public func upsert(contentsOf users: [User], ifOwnedBy applicationId: String?) -> Bool {
    guard !users.isEmpty else { return true }
    let written = state.write { snapshot -> Snapshot? in
      if let applicationId, snapshot.applicationId != applicationId { return nil }
      for user in users {
        if let existing = snapshot.users[user.userId] {
          snapshot.users[user.userId] = Entry(user: user, order: existing.order)
        } else {
          snapshot.users[user.userId] = Entry(user: user, order: snapshot.nextOrder)
          snapshot.nextOrder += 1
        }
      }
      snapshot.version += 1
      return snapshot
    }
    guard let written else { return false }
    persist(written)
    return true
  }

  /// The application whose users the store holds, as last claimed (and kept in the file); `nil` before any claim.
  public var applicationId: String? { state.read { $0.applicationId } }

  /// Makes the store `applicationId`'s (REQUIREMENTS U2): if it held another application's users, they are deleted
  /// first, from memory and from the file. Users stored before any claim are adopted.
  ///
  /// - Returns: whether another application's users were deleted.
  @discardableResult
  public func claim(for applicationId: String) -> Bool {
    let (snapshot, wiped) = state.write { snapshot -> (Snapshot?, Bool) in
      guard snapshot.applicationId != applicationId else { return (nil, false) }
      let wiped = snapshot.applicationId != nil && !snapshot.users.isEmpty
      if snapshot.applicationId != nil { snapshot.users = [:] }
      snapshot.applicationId = applicationId
      snapshot.version += 1
      return (snapshot, wiped)
    }
    if let snapshot { persist(snapshot) }
    return wiped
  }

  /// The user with id `id`, if stored.
  public func user(id: String) -> User? {
    state.read { $0.users[id]?.user }
  }

  /// Every stored user, in the order they were first stored.
  public func users() -> [User] {
    state.read { Self.ordered($0.users.values) }
  }

  /// The stored users whose nickname is exactly `nickname`, in the order they were first stored.
  public func users(nickname: String) -> [User] {
    state.read { Self.ordered($0.users.values.filter { $0.user.nickname == nickname }) }
  }

  /// How many users are stored.
  public var count: Int { state.read { $0.users.count } }

  /// Removes every user, from memory and from the file; the store still belongs to its application.
  public func removeAll() {
    persist(
      state.write { snapshot in
        snapshot.users = [:]
        snapshot.version += 1
        return snapshot
      })
  }

  private static func ordered(_ entries: some Sequence<Entry>) -> [User] {
    entries.sorted { $0.order < $1.order }.map(\.user)
  }

  private func persist(_ snapshot: Snapshot) {
    guard let file else { return }
    // One writer at a time, newest first: an older snapshot that arrives late is not written over a newer one.
    written.withLock { onDisk in
      guard snapshot.version > onDisk.version else { return }
      do {
        // The owner is written with the users, so a file can never pass for another application's (U2).
        let contents = StoredUsers(applicationId: snapshot.applicationId, users: Self.ordered(snapshot.users.values))
        let data: Data
        do {
          data = try JSONEncoder().encode(contents)
        } catch {
          throw FileSystemError(EINVAL, while: "encode the user cache for", path: file.path)
        }
        try OwnerOnlyFiles.write(data, to: file, synchronously: false)
        onDisk = (snapshot.version, nil)
      } catch {
        onDisk.failure = (error as? FileSystemError)?.description ?? "\(error)"
        logger.warning("The user cache could not be written to \(file.path): \(error)")
      }
    }
  }

  /// The file's contents: the application the users belong to, and the users in first-stored order.
  private struct StoredUsers: Codable {
    var applicationId: String?
    var users: [User]
  }

  private static func load(_ file: URL?, logger: Logger) -> StoredUsers {
    let empty = StoredUsers(applicationId: nil, users: [])
    guard let file, FileManager.default.fileExists(atPath: file.path) else { return empty }
    do {
      return try JSONDecoder().decode(StoredUsers.self, from: Data(contentsOf: file))
    } catch {
      // Unknown contents belong to no known application: starting empty is what U2 would do with them anyway.
      logger.warning("The user cache at \(file.path) is unreadable and starts empty: \(error)")
      return empty
    }
  }
}
