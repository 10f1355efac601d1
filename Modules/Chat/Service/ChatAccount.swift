import Crypto
import Domain
import Foundation
import KeelFiles
import Persistence

/// One account's chat on this device, in a directory of its own under the chat's (`accounts/<digest>/`, the digest
/// the SHA-256 of the user's id): its store, its outbox and the outbox's copies of images. No account reads or sends
/// from another's directory.
final class ChatAccount: Sendable {
  /// Whose it is.
  let userID: String
  let directory: URL
  /// The account's local store.
  let store: ChatStore
  /// The messages waiting to be sent, all the account's own.
  let outbox: DurableQueue<OutgoingMessage>
  /// The outbox's copies of the images of unsent messages.
  let images: URL
  /// Held while a message is sent from the outbox: every `ChatService` on the directory, in any process, sends one at
  /// a time.
  let lock: FileLock

  /// Opens `userID`'s chat in `root`, creating its directory and files if needed.
  ///
  /// - Throws: `PersistenceError` (or `FileSystemError`) when the store or the outbox cannot be opened.
  convenience init(
    userID: String, root: URL, configuration: ChatConfiguration, now: @escaping @Sendable () -> Date
  ) throws {
    try self.init(
      userID: userID, directory: Self.directory(of: userID, in: root), configuration: configuration, now: now)
  }

  private init(
    userID: String, directory: URL, configuration: ChatConfiguration, now: @escaping @Sendable () -> Date
  ) throws {
    self.userID = userID
    self.directory = directory
    images = directory.appendingPathComponent("outbox-images", isDirectory: true)
    try OwnerOnlyFiles.makeDirectory(directory)
    try OwnerOnlyFiles.makeDirectory(images)
    store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"), maxSize: configuration.storeMaxSize)
    outbox = try DurableQueue(
      url: directory.appendingPathComponent("outbox.sqlite"), capacity: configuration.outboxCapacity,
      overflow: .rejectNew, durability: configuration.outboxDurability, checkpointsBeside: true, now: now)
    lock = try FileLock(at: directory.appendingPathComponent("outbox.lock"))
  }

  /// Retires every account in `root` but those `keep` names as each directory is looked at (the signed-in user's;
  /// none when nobody is signed in), see ``retire(settings:)``: only one account is signed in on a data directory, so
  /// the others were signed out of, in this process or another.
  static func retireOthers(
    than keep: @Sendable () -> [String], in root: URL, settings: (any KeyValueStore)?, configuration: ChatConfiguration,
    now: @escaping @Sendable () -> Date
  ) async throws {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: accounts(in: root).path)) ?? []
    for name in names where name.count == 64 && !keep().map(digest(of:)).contains(name) {
      let other = try ChatAccount(
        userID: "", directory: accounts(in: root).appendingPathComponent(name, isDirectory: true),
        configuration: configuration, now: now)
      try await other.retire(settings: settings)
    }
  }

  /// Moves what an older layout (one store and one outbox for every account, in `root` itself) left: each waiting
  /// message goes to its sender's outbox, with its images; the old store and outbox are then removed (what the server
  /// gave comes again).
  static func adoptUnsorted(
    in root: URL, configuration: ChatConfiguration, now: @escaping @Sendable () -> Date,
    account open: (String) throws -> ChatAccount
  ) async throws {
    let oldOutbox = root.appendingPathComponent("outbox.sqlite")
    let oldImages = root.appendingPathComponent("outbox-images", isDirectory: true)
    if FileManager.default.fileExists(atPath: oldOutbox.path) {
      let queue = try DurableQueue<OutgoingMessage>(
        url: oldOutbox, capacity: configuration.outboxCapacity, overflow: .rejectNew, now: now)
      var accounts: [String: ChatAccount] = [:]
      while let item = try await queue.peek(limit: 1, now: .distantFuture).first {
        let message = item.element
        let account = try accounts[message.senderID] ?? open(message.senderID)
        accounts[message.senderID] = account
        for name in message.images {
          let source = oldImages.appendingPathComponent(name)
          let target = account.images.appendingPathComponent(name)
          let fileManager = FileManager.default
          if fileManager.fileExists(atPath: source.path), !fileManager.fileExists(atPath: target.path) {
            try fileManager.moveItem(at: source, to: target)
          }
        }
        _ = try await account.outbox.enqueue(message)
        _ = try await queue.acknowledge([item.id])
      }
    }
    for name in ["chat.sqlite", "outbox.sqlite", "outbox.lock"] {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(name + suffix))
      }
    }
    try? FileManager.default.removeItem(at: oldImages)
  }

  /// The disk level of the account's image loader: server-given, so forgotten when the account is retired.
  var imageCache: URL { directory.appendingPathComponent("image-cache", isDirectory: true) }

  /// The downloaded files of messages, kept for the next download of the same file: server-given, so forgotten when
  /// the account is retired.
  var fileCache: URL { directory.appendingPathComponent("file-cache", isDirectory: true) }

  /// The directory of `userID`'s chat in `root`.
  static func directory(of userID: String, in root: URL) -> URL {
    accounts(in: root).appendingPathComponent(digest(of: userID), isDirectory: true)
  }

  /// The directory holding every account's.
  static func accounts(in root: URL) -> URL { root.appendingPathComponent("accounts", isDirectory: true) }

  /// The SHA-256 of `userID`'s UTF-8 bytes in lowercase hex: a name for its directory and settings that does not
  /// show whose they are.
  static func digest(of userID: String) -> String {
    SHA256.hash(data: Data(userID.utf8)).map { byte in
      let hex = String(byte, radix: 16)
      return hex.count == 1 ? "0" + hex : hex
    }.joined()
  }

  /// The settings key of the account's last workspace.
  var lastWorkspaceKey: String { Self.lastWorkspaceKey(digest: directory.lastPathComponent) }

  /// The settings key of the last workspace of the account whose directory is named `digest`.
  static func lastWorkspaceKey(digest: String) -> String { "keel.chat.\(digest).lastWorkspaceID" }

  /// The account was signed out of: what the server gave is forgotten, and so is its last workspace (in `settings`);
  /// what its user wrote and has not sent stays, for them alone. A directory left with nothing unsent is removed.
  ///
  /// - Returns: Whether the directory was removed.
  @discardableResult
  func retire(settings: (any KeyValueStore)? = nil) async throws -> Bool {
    try? settings?.removeValue(forKey: lastWorkspaceKey)
    try? FileManager.default.removeItem(at: imageCache)
    try? FileManager.default.removeItem(at: fileCache)
    let unsent = try await store.forgetAllButUnsent()
    guard unsent == 0, try await outbox.count() == 0 else { return false }
    try FileManager.default.removeItem(at: directory)
    return true
  }
}
