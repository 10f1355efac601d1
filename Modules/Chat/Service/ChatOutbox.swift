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
  /// A change of a sent message instead of a new message; its client message id is the change's id, which makes
  /// sending it again harmless.
  var change: OutgoingChange?

  init(
    conversationID: String, clientMessageID: String, senderID: String, text: String, images: [String],
    replyTo: String? = nil, change: OutgoingChange? = nil
  ) {
    self.conversationID = conversationID
    self.clientMessageID = clientMessageID
    self.senderID = senderID
    self.text = text
    self.images = images
    self.replyTo = replyTo
    self.change = change
  }
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

  /// What a message may hold (``ChatService/messageLimits``).
  static let limits = MultipartLimits(
    maxFiles: 5, maxFileSize: 8 << 20, maxBodySize: 41 << 20, maxFieldSize: 40_000,
    allowedFileTypes: MultipartLimits.chatBackendImageTypes)
  /// The most characters of a message's text (``ChatService/maxTextLength``).
  static let maxTextLength = 10_000
  /// The most bytes of UTF-8 of a message's text (``ChatService/maxTextBytes``).
  static let maxTextBytes = 40_000
  /// How often ``outcome(of:)`` reads the store (``ChatService/outcomePollInterval``).
  static let pollInterval: Duration = .milliseconds(250)

  /// Checks a message before anything is written or sent (``ChatService/validate(_:images:)``).
  static func validate(_ text: String, images: [URL]) throws {
    guard text.count <= maxTextLength, text.utf8.count <= maxTextBytes else {
      throw ChatError(
        .invalidInput,
        "A message's text has at most \(maxTextLength) characters and \(maxTextBytes) bytes of UTF-8, not "
          + "\(text.count) and \(text.utf8.count); nothing was sent.")
    }
    guard !images.isEmpty || !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw ChatError(.invalidInput, "A message needs a text or an image; nothing was sent.")
    }
    do throws(MultipartError) {
      var form = MultipartFormData()
      for image in images { try form.append(fileAt: image, name: "images") }
      try form.validate(limits)
    } catch {
      throw ChatError(.invalidInput, "Cannot send these images: \(error.description.clause); nothing was sent.")
    }
    for image in images {
      let head = (try? FileHandle(forReadingFrom: image)).flatMap { handle in
        defer { try? handle.close() }
        return try? handle.read(upToCount: 16)
      }
      guard MultipartLimits.isChatBackendImage(head: head ?? Data()) else {
        throw ChatError(
          .invalidInput,
          "\(image.path) is not a PNG, JPEG, GIF or WebP image, whatever its name; nothing was sent.")
      }
    }
  }

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
  }

  /// Checks, keeps and shows a new message (``ChatService/send(_:images:to:)``), a reply to `replyTo` when given.
  func send(_ text: String, images: [URL] = [], to conversationID: String, replyTo: String? = nil) async throws
    -> Message
  {
    _ = try accounts.me()
    try Self.validate(text, images: images)
    // One read of the session: the message goes to its writer's outbox, whoever signs in meanwhile.
    let account = try accounts.current()
    let me = account.userID
    let clientMessageID = UUID().uuidString.lowercased()
    let names = try copyImages(images, for: clientMessageID, into: account)
    let outgoing = OutgoingMessage(
      conversationID: conversationID, clientMessageID: clientMessageID, senderID: me, text: text, images: names,
      replyTo: replyTo)
    do {
      try await account.outbox.enqueue(outgoing)
    } catch {
      removeImages(names, of: account)
      throw ChatError.storage(error, doing: "keep the message in the outbox")
    }
    let pending = Message(
      id: nil, clientMessageID: clientMessageID, conversationID: conversationID, senderID: me, text: text,
      images: names.map { account.images.appendingPathComponent($0).path }, createdAt: now(), state: .pending,
      replyTo: replyTo)
    await show(pending, in: account, added: true)
    wakeup.signal()
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
    guard names.allSatisfy({ FileManager.default.fileExists(atPath: account.images.appendingPathComponent($0).path) })
    else {
      throw ChatError(.invalidInput, "The images of message \(clientMessageID) are gone from the outbox.")
    }
    let outgoing = OutgoingMessage(
      conversationID: message.conversationID, clientMessageID: clientMessageID, senderID: me, text: message.text,
      images: names, replyTo: message.replyTo)
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
      for await case let settled? in updates where settled.clientMessageID == clientMessageID { return settled }
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

  private func copyImages(_ images: [URL], for clientMessageID: String, into account: ChatAccount) throws -> [String] {
    var names: [String] = []
    do {
      for (index, image) in images.enumerated() {
        let name = "\(clientMessageID)-\(index)" + (image.pathExtension.isEmpty ? "" : ".\(image.pathExtension)")
        let copy = account.images.appendingPathComponent(name)
        try OwnerOnlyFiles.write(try Data(contentsOf: image), to: copy)
        names.append(name)
      }
    } catch {
      removeImages(names, of: account)
      throw ChatError.storage(error, doing: "copy the images into the outbox")
    }
    return names
  }

  func removeImages(_ names: [String], of account: ChatAccount) {
    for name in names { try? FileManager.default.removeItem(at: account.images.appendingPathComponent(name)) }
  }

  /// Stores `message` in `account`'s store and shows it in its conversation if that is open.
  func show(_ message: Message, in account: ChatAccount, added: Bool) async {
    do {
      try await account.store.upsert([message])
    } catch {
      logger.warning(
        "Cannot show message \(message.clientMessageID ?? "?") in the store; the outbox keeps it: \(error)")
    }
    guard accounts.isCurrent(account) else { return }
    await connection.sync(for: message.conversationID)?.changed(added: added ? 1 : 0)
  }
}
