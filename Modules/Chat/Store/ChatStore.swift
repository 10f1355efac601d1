import Foundation
import GRDB
import KeelConcurrency
import Persistence

/// The chat's local database (REQUIREMENTS C3): workspaces, conversations (channels and DM rooms), members, messages
/// and read pointers in SQLite through GRDB, read first by every screen and refreshed from the server behind it.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
/// let store = try ChatStore(url: dataDirectory.appending(path: "chat.sqlite"))
/// let message = Message(
///   id: "m1", clientMessageID: "c1", conversationID: "general", senderID: "alice", text: "Hello",
///   createdAt: Date())
/// try await store.upsert([message])
/// try await store.upsert([message])                          // stored once: upserts are idempotent
/// let page = try await store.messages(in: "general", limit: 50)  // the newest 50, oldest first
/// ```
///
/// ## Idempotence and order
/// A message is one row whether it arrives from the socket, from a catch-up page, twice from a duplicated push, or
/// first as the sender's own pending copy: an upsert finds it by server id, else by the sender's client message id
/// in that conversation (one member's client id never matches another's message); a sent message never goes back to
/// pending or failed. A
/// conversation's messages read in (time, id) order (``Message/Position``), a page at a time.
///
/// ## Size
/// The store keeps under ``maxSize`` bytes (256 MB by default, the size the leading chat SDK uses): past it, the sent
/// messages of the conversations viewed least recently (``touch(_:at:)``) are deleted first, and the server gives them
/// back on the next catch-up. Pending and failed messages are never evicted.
///
/// ## A damaged or foreign file
/// A file that is not a database, is damaged, or belongs to something else is never opened as the store and never
/// deleted: it is renamed beside itself (``setAside``) and the store starts empty. Its contents came from the server.
///
/// Safe to share between tasks and threads; open one `ChatStore` per file in a process.
public final class ChatStore: SQLiteStore {
  /// The database file.
  public let url: URL
  /// The most bytes the store's data may take before conversations are evicted.
  public let maxSize: Int64
  /// The file found at ``url`` and set aside when the store was opened, and why; `nil` when the file was healthy or
  /// new.
  public let setAside: SetAside?

  package let pool: DatabasePool
  /// What the store measured of its size last, and how much it may have grown since: so that a write of a few
  /// messages does not measure it again (a transaction of its own) while it is far from ``maxSize``.
  let growth = Locked(ChatStoreGrowth())

  /// A file the store did not open, renamed beside itself.
  public struct SetAside: Sendable, Hashable {
    /// Where the file is now.
    public let url: URL
    /// Why it was set aside: a complete sentence.
    public let reason: String
  }

  /// Opens the store in the file at `url`, creating it, its directory and its tables if needed; a file that is
  /// damaged or not a chat store is set aside (``setAside``) and the store starts empty.
  ///
  /// - Parameters:
  ///   - url: A file URL for the database. SQLite adds `-wal` and `-shm` files beside it.
  ///   - maxSize: The most bytes the data may take, at least 1 MiB; 256 MB by default.
  /// - Throws: `PersistenceError`: `PersistenceError.Kind.invalidInput` for a size below 1 MiB or a URL that is
  ///   not a file, `PersistenceError.Kind.permissionDenied`, `PersistenceError.Kind.diskFull` or
  ///   `PersistenceError.Kind.io` when no store can be opened there at all.
  public init(url: URL, maxSize: Int64 = 256_000_000) throws {
    guard url.isFileURL, maxSize >= 1 << 20 else {
      throw PersistenceError(
        .invalidInput, "A chat store needs a file URL and a size limit of at least 1 MiB, not \(url), \(maxSize).",
        path: url.path)
    }
    self.url = url
    self.maxSize = maxSize
    do {
      pool = try Self.open(url)
      setAside = nil
    } catch let error as PersistenceError where error.kind == .corrupted {
      let moved = try Self.setAside(url)
      pool = try Self.open(url)
      setAside = SetAside(url: moved, reason: error.description)
    }
  }

  private static func open(_ url: URL) throws -> DatabasePool {
    try OwnerOnlyFile.makeDirectory(url.deletingLastPathComponent(), ownedByKeel: false)
    do {
      try inspect(url)
      try OwnerOnlyFile.prepare(url)
      var configuration = Configuration()
      configuration.label = "Keel.ChatStore"
      configuration.busyMode = .timeout(10)
      configuration.maximumReaderCount = 4
      configuration.prepareDatabase { db in try SearchRank.register(in: db) }
      let pool = try WALCheckpointer.pool(path: url.path, configuration)
      try ChatStoreSchema.migrator.migrate(pool)
      return pool
    } catch let error as PersistenceError {
      throw error
    } catch let error as DatabaseError {
      throw PersistenceError.sqlite(error, while: "open the database", path: url.path, in: "chat store")
    } catch {
      throw PersistenceError.wrapping(error, while: "open the chat store", path: url.path)
    }
  }

  /// Reads an existing file without changing it (opening it as the store would switch it to WAL): it must be a
  /// database whose tables are a chat store's, written by this version or an older one.
  private static func inspect(_ url: URL) throws {
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    guard size > 0 else { return }
    var configuration = Configuration()
    configuration.readonly = true
    let database = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? database.close() }
    try database.read { db in
      let tables = try Set(
        String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
      let ours = tables.subtracting(ChatStoreSchema.tables.union(["grdb_migrations"])).isEmpty
      guard ours else {
        throw PersistenceError(
          .corrupted, "\(url.path) is a database of something else (tables \(tables.sorted())), not a chat store.",
          path: url.path)
      }
      if try ChatStoreSchema.migrator.hasBeenSuperseded(db) {
        throw PersistenceError(
          .corrupted, "\(url.path) was written by a newer version of the chat store.", path: url.path)
      }
    }
  }

  /// Renames the file at `url` (and its `-wal` and `-shm` files) beside itself, and returns where it went.
  private static func setAside(_ url: URL) throws -> URL {
    let stamp = Int(Date().timeIntervalSince1970)
    let moved = url.deletingLastPathComponent()
      .appendingPathComponent("\(url.lastPathComponent).set-aside-\(stamp)-\(UUID().uuidString.prefix(8))")
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
      guard rename(url.path + suffix, moved.path + suffix) == 0 else {
        throw PersistenceError.posix(errno, while: "set aside the damaged chat store", path: url.path + suffix)
      }
    }
    return moved
  }

  /// What the store is called in its errors.
  package static var storeName: String { "chat store" }
}
