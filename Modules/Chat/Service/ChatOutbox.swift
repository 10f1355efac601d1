import Domain
import Foundation
import KeelConcurrency
import KeelErrors
import KeelFiles
import Logging
import Networking
import Persistence

/// A message waiting in the outbox: what is sent, and the client message id that makes sending it again harmless.
struct OutgoingMessage: Codable, Sendable {
  var conversationID: String
  var clientMessageID: String
  var senderID: String
  var text: String
  /// The file names of the outbox's copies of its images, in `outbox-images/`.
  var images: [String]
  /// The server id of the message it replies to.
  var replyTo: String?
  /// Its files, beside its images, each copied into `outbox-images/`; `nil` in an outbox written before messages
  /// had files.
  var files: [OutgoingFile]?
  /// A change of a sent message instead of a new message; its client message id is the change's id, which makes
  /// sending it again harmless.
  var change: OutgoingChange?

  init(
    conversationID: String, clientMessageID: String, senderID: String, text: String, images: [String],
    replyTo: String? = nil, files: [OutgoingFile] = [], change: OutgoingChange? = nil
  ) {
    self.conversationID = conversationID
    self.clientMessageID = clientMessageID
    self.senderID = senderID
    self.text = text
    self.images = images
    self.replyTo = replyTo
    self.files = files.isEmpty ? nil : files
    self.change = change
  }
}

extension OutgoingMessage {
  /// Why the outbox's copies of its files, in `images`, cannot be sent as they were taken: a copy missing or of
  /// another size than it had (a power loss can leave one short: the copies are not flushed, the outbox's records
  /// are); `nil` when they are whole.
  func lostFile(in images: URL) -> String? {
    for file in files ?? [] {
      let size = try? ChatOutbox.size(of: images.appendingPathComponent(file.copy))
      if size != file.size {
        return "Its file \(file.name) was lost on this device before it was sent (\(size ?? 0) of \(file.size) bytes "
          + "are left); attach it again."
      }
    }
    return nil
  }
}

/// A file waiting in the outbox with its message: the outbox's copy, and what the server is told of it.
struct OutgoingFile: Codable, Sendable {
  /// The copy's file name in `outbox-images/`.
  var copy: String
  /// The name it is sent with, made safe.
  var name: String
  var contentType: String
  var size: Int64
}

/// A change of a sent message, waiting in the outbox in its turn with the messages.
struct OutgoingChange: Codable, Sendable {
  enum Kind: String, Codable, Sendable {
    case edit, delete, addReaction, removeReaction
  }

  var kind: Kind
  /// The server id of the message it changes.
  var messageID: String
  /// The new text of an edit.
  var text: String?
  /// The emoji of a reaction.
  var emoji: String?
  /// The message as it was before this change was shown, put back if the server refuses the change.
  var original: Message
}

/// The chat's outbox: each account's durable queue of messages to send, and the sender that empties the signed-in
/// user's, one message at a time and in order, sending a message again with its client message id until the server
/// has it or refuses it (REQUIREMENTS C2, C6). A message it settles shows in its conversation through the connection.
final class ChatOutbox: Sendable {
  let accounts: ChatAccounts
  let connection: ChatConnection
  let baseURL: URL
  let configuration: ChatConfiguration
  let logger: Logger
  let now: @Sendable () -> Date
  let sleep: @Sendable (Duration) async throws -> Void
  /// Wakes the sender: a message was written, the network came back, or the session changed.
  let wakeup = WakeSignal()
  /// The last message the sender sent or failed, for ``outcome(of:)``.
  let settled = Broadcast<Message?>(nil)
  /// The id of the last change the sender settled, for ``outcome(of:)-(MessageChange)``.
  let settledChanges = Broadcast<String?>(nil)
  /// Why the sender's last attempt failed for now; `nil` once one succeeds.
  let retryReason = Locked<String?>(nil)
  let isShutDown = Locked(false)
  /// How far the message being sent has come, for ``ChatService/uploadProgress(of:)``.
  let uploads = Broadcast<UploadProgress?>(nil)
  /// The messages the app cancelled (``ChatService/cancel(_:)``), and the attempt under way.
  let cancellations = Locked(Cancellations())

  init(
    accounts: ChatAccounts, connection: ChatConnection, baseURL: URL, configuration: ChatConfiguration,
    now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void, logger: Logger
  ) {
    self.accounts = accounts
    self.connection = connection
    self.baseURL = baseURL
    self.configuration = configuration
    self.now = now
    self.sleep = sleep
    self.logger = logger
  }

  /// What a message's images may be (``ChatService/messageLimits``).
  static let limits = MultipartLimits(
    maxFiles: 5, maxFileSize: 8 << 20, maxBodySize: 41 << 20, maxFieldSize: 40_000,
    allowedFileTypes: MultipartLimits.chatBackendImageTypes)
  /// What a message's files may be (``ChatService/fileLimits``): five of any type, 25 MiB each, 50 MiB together.
  static let fileLimits = MultipartLimits(
    maxFiles: 5, maxFileSize: 25 << 20, maxBodySize: 50 << 20, maxFieldSize: 40_000)
  /// What a whole message's body may be: its images, its files and its fields.
  static let bodyLimits = MultipartLimits(
    maxFiles: limits.maxFiles + fileLimits.maxFiles, maxFileSize: fileLimits.maxFileSize,
    maxBodySize: limits.maxBodySize + fileLimits.maxBodySize, maxFieldSize: 40_000)
  /// The most characters of a message's text (``ChatService/maxTextLength``).
  static let maxTextLength = 10_000
  /// The most bytes of UTF-8 of a message's text (``ChatService/maxTextBytes``).
  static let maxTextBytes = 40_000
  /// How often ``outcome(of:)`` reads the store (``ChatService/outcomePollInterval``).
  static let pollInterval: Duration = .milliseconds(250)

  /// The service is shutting down: ``outcome(of:)`` answers at once from now on, and the sender, whose task is
  /// cancelled, is woken to see it.
  func stop() {
    isShutDown.withLock { $0 = true }
    wakeup.signal()
  }

  /// Ends ``outcome(of:)``'s waits, once the sender has stopped (a message it settled while stopping still reaches
  /// them).
  func finish() {
    settled.finish()
    settledChanges.finish()
    uploads.finish()
  }

  /// Checks, keeps and shows a new message (``ChatService/send(_:images:files:to:)``), a reply to `replyTo` when
  /// given.
  func send(
    _ text: String, images: [URL] = [], files: [URL] = [], to conversationID: String, replyTo: String? = nil
  ) async throws -> Message {
    _ = try accounts.me()
    try Self.validate(text, images: images, files: files)
    // One read of the session: the message goes to its writer's outbox, whoever signs in meanwhile.
    let account = try accounts.current()
    let me = account.userID
    let clientMessageID = UUID().uuidString.lowercased()
    let names = try copyImages(images, for: clientMessageID, into: account)
    let copies: [OutgoingFile]
    do {
      copies = try copyFiles(files, for: clientMessageID, into: account)
    } catch {
      removeImages(names, of: account)
      throw error
    }
    let outgoing = OutgoingMessage(
      conversationID: conversationID, clientMessageID: clientMessageID, senderID: me, text: text, images: names,
      replyTo: replyTo, files: copies)
    do {
      // At the crash-safe level a commit writes no more than the write-ahead log: done on this thread, it is the
      // transaction alone, where a hop to the store's writer and back took as long again before the sender could go.
      if account.outbox.durability == .survivesCrash {
        // A cancelled send keeps nothing, as the suspending enqueue (which checks first) does.
        try Task.checkCancellation()
        if let stored = outgoing.storedJSON {
          try account.outbox.enqueueNow(encoded: [stored])
        } else {
          try account.outbox.enqueueNow(outgoing)
        }
      } else {
        try await account.outbox.enqueue(outgoing)
      }
    } catch {
      removeImages(names + copies.map(\.copy), of: account)
      throw ChatError.storage(error, doing: "keep the message in the outbox")
    }
    // The sender goes first: the pending copy is shown while the message is on its way, and never over what the
    // sender stored of it meanwhile (`addPending`).
    wakeup.signal()
    let pending = pendingRecord(of: outgoing, in: account)
    await show(pending, in: account, added: true, ifNew: true)
    // Sent: the others' indicator of this user typing ends with it.
    await connection.userStoppedTyping(in: conversationID)
    return pending
  }

  /// Puts a failed message back in the outbox (``ChatService/resend(_:)``).
  func resend(_ message: Message) async throws {
    let account = try accounts.current()
    let me = account.userID
    guard message.state == .failed, let clientMessageID = message.clientMessageID, message.senderID == me else {
      throw ChatError(.invalidInput, "Only a failed message of the signed-in user's can be sent again.")
    }
    let names = message.images.map { URL(fileURLWithPath: $0).lastPathComponent }
    let files = message.files.map { file in
      OutgoingFile(
        copy: URL(fileURLWithPath: file.url).lastPathComponent, name: file.name, contentType: file.contentType,
        size: file.size)
    }
    guard
      (names + files.map(\.copy)).allSatisfy({
        FileManager.default.fileExists(atPath: account.images.appendingPathComponent($0).path)
      })
    else {
      throw ChatError(.invalidInput, "The images or files of message \(clientMessageID) are gone from the outbox.")
    }
    let outgoing = OutgoingMessage(
      conversationID: message.conversationID, clientMessageID: clientMessageID, senderID: me, text: message.text,
      images: names, replyTo: message.replyTo, files: files)
    do {
      try await account.outbox.enqueue(outgoing)
    } catch {
      throw ChatError.storage(error, doing: "keep the message in the outbox")
    }
    var pending = message
    pending.state = .pending
    pending.failureReason = nil
    await show(pending, in: account, added: false)
    wakeup.signal()
  }

  /// Waits for what became of `message` (``ChatService/outcome(of:)``).
  func outcome(of message: Message) async -> Message {
    guard let clientMessageID = message.clientMessageID else { return message }
    let updates = settled.updates()  // before the store is read, so that nothing settles unseen in between
    guard !isShutDown.withLock({ $0 }), let store = try? accounts.current().store else { return message }
    let settledInStore: @Sendable () async -> Message? = {
      guard
        let stored = try? await store.message(
          clientMessageID: clientMessageID, in: message.conversationID, from: message.senderID),
        stored.state != .pending
      else { return nil }
      return stored
    }
    if let stored = await settledInStore() { return stored }
    let announced: @Sendable () async -> Message? = {
      // Past the value the broadcast replays on subscribing: an earlier failure of the same message, resent since,
      // is not this attempt's outcome (what settled before the subscription is in the store).
      for await case let settled? in updates.dropFirst() where settled.clientMessageID == clientMessageID {
        return settled
      }
      return nil
    }
    return await firstSettled(announced: announced, stored: settledInStore) ?? message
  }

  /// What settled first: what `announced` returns (this process's sender settled it), or what `stored` reads from the
  /// store every ``pollInterval`` (another process on the same directory settled it); `nil` when the wait ended first
  /// (the updates ended, or the task was cancelled).
  func firstSettled<Value: Sendable>(
    announced: @escaping @Sendable () async -> Value?, stored: @escaping @Sendable () async -> Value?
  ) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
      group.addTask { await announced() }
      group.addTask { [sleep] in
        while true {
          do { try await sleep(Self.pollInterval) } catch { return nil }
          if let value = await stored() { return value }
        }
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }

  /// Why the last attempt failed, until one succeeds (``ChatService/outboxProblem``).
  var problem: String? { retryReason.withLock { $0 } }

  /// How many of the signed-in user's messages wait (``ChatService/outboxCount()``).
  func count() async throws -> Int {
    let account = try accounts.current()
    return try await stored("count the outbox") { try await account.outbox.count() }
  }

  /// Stores `message` in `account`'s store and shows it in its conversation if that is open; `ifNew`, only when the
  /// store has no copy of it yet (``ChatStore/addPending(_:)``).
  func show(_ message: Message, in account: ChatAccount, added: Bool, ifNew: Bool = false) async {
    do {
      if ifNew {
        try await account.store.addPending(message)
      } else {
        try await account.store.upsert([message])
      }
    } catch {
      logger.warning(
        "Cannot show message \(message.clientMessageID ?? "?") in the store; the outbox keeps it: \(error)")
    }
    guard accounts.isCurrent(account) else { return }
    await connection.sync(for: message.conversationID)?.changed(added: added ? 1 : 0)
  }
}
