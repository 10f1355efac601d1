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
}

/// The chat's outbox: each account's durable queue of messages to send, and the sender that empties the signed-in
/// user's, one message at a time and in order, sending a message again with its client message id until the server
/// has it or refuses it (REQUIREMENTS C2, C6). A message it settles shows in its conversation through the connection.
final class ChatOutbox: Sendable {
  private let accounts: ChatAccounts
  private let connection: ChatConnection
  private let baseURL: URL
  private let configuration: ChatConfiguration
  private let logger: Logger
  private let now: @Sendable () -> Date
  private let sleep: @Sendable (Duration) async throws -> Void
  /// Wakes the sender: a message was written, the network came back, or the session changed.
  let wakeup = WakeSignal()
  /// The last message the sender sent or failed, for ``outcome(of:)``.
  private let settled = Broadcast<Message?>(nil)
  /// Why the sender's last attempt failed for now; `nil` once one succeeds.
  private let retryReason = Locked<String?>(nil)
  private let isShutDown = Locked(false)

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
    allowedFileTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"])
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
    // The form's type falls back to the file's extension; the server goes by the bytes alone, and so does this.
    for image in images {
      let head = (try? FileHandle(forReadingFrom: image)).flatMap { handle in
        defer { try? handle.close() }
        return try? handle.read(upToCount: 16)
      }
      let type = MultipartFormData.contentType(sniffing: head ?? Data(), pathExtension: "")
      guard limits.allowedFileTypes?.contains(type) ?? true else {
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
  }

  /// Checks, keeps and shows a new message (``ChatService/send(_:images:to:)``).
  func send(_ text: String, images: [URL] = [], to conversationID: String) async throws -> Message {
    _ = try accounts.me()
    try Self.validate(text, images: images)
    // One read of the session: the message goes to its writer's outbox, whoever signs in meanwhile.
    let account = try accounts.current()
    let me = account.userID
    let clientMessageID = UUID().uuidString.lowercased()
    let names = try copyImages(images, for: clientMessageID, into: account)
    let outgoing = OutgoingMessage(
      conversationID: conversationID, clientMessageID: clientMessageID, senderID: me, text: text, images: names)
    do {
      try await account.outbox.enqueue(outgoing)
    } catch {
      removeImages(names, of: account)
      throw ChatError.storage(error, doing: "keep the message in the outbox")
    }
    let pending = Message(
      id: nil, clientMessageID: clientMessageID, conversationID: conversationID, senderID: me, text: text,
      images: names.map { account.images.appendingPathComponent($0).path }, createdAt: now(), state: .pending)
    await show(pending, in: account, added: true)
    wakeup.signal()
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
      images: names)
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
    return await withTaskGroup(of: Message?.self) { group in
      group.addTask {
        for await case let settled? in updates where settled.clientMessageID == clientMessageID { return settled }
        return nil
      }
      group.addTask { [sleep] in
        while true {
          do { try await sleep(Self.pollInterval) } catch { return nil }
          if let stored = await settledInStore() { return stored }
        }
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? message
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

  private func removeImages(_ names: [String], of account: ChatAccount) {
    for name in names { try? FileManager.default.removeItem(at: account.images.appendingPathComponent(name)) }
  }

  /// Stores `message` in `account`'s store and shows it in its conversation if that is open.
  private func show(_ message: Message, in account: ChatAccount, added: Bool) async {
    do {
      try await account.store.upsert([message])
    } catch {
      logger.warning(
        "Cannot show message \(message.clientMessageID ?? "?") in the store; the outbox keeps it: \(error)")
    }
    guard accounts.isCurrent(account) else { return }
    await connection.sync(for: message.conversationID)?.changed(added: added ? 1 : 0)
  }

  // MARK: - The sender

  /// What one attempt to send came to.
  enum Delivery {
    case sent(Message)
    /// For good: the server refused it, or it cannot be built; `reason` says why.
    case refused(String)
    /// For now: the network, the server's health or the session; sent again after a wait.
    case retry(String)
  }

  /// What the sender does after one turn.
  private enum Turn {
    /// Sends the next message at once.
    case next
    /// Waits for a new message, or `delay` when one is given.
    case wait(Duration?)
    /// Stops: the service is shutting down.
    case stop
  }

  /// The outbox's sender: one message at a time, oldest first; after a failure that may pass, it waits (a growing
  /// delay, cut short when the network comes back) and sends the same message again, so that the order holds.
  ///
  /// It sends from the signed-in user's outbox alone, and waits while nobody is signed in. Every chat service on the
  /// directory sends from the same outbox (a `keel chat send` beside a `keel chat tail`): each sends only while it
  /// holds the account's lock, so that no message goes twice at once and no one removes the files of a message
  /// another is sending. A service that finds the lock held tries again shortly.
  func loop() async {
    var failures = 0
    var sender: String?
    while !Task.isCancelled {
      guard accounts.sessions.currentUser != nil else {
        await wakeup.wait(orAfter: nil, sleep: sleep)
        continue
      }
      let account: ChatAccount
      do {
        account = try accounts.current()
      } catch {
        logger.error("Cannot open the outbox; trying again: \(error)")
        await wakeup.wait(orAfter: configuration.maxRetryDelay, sleep: sleep)
        continue
      }
      if sender != account.userID {
        sender = account.userID
        failures = 0
      }
      guard account.lock.tryLock() else {
        await wakeup.wait(orAfter: Self.outboxLockRetry, sleep: sleep)
        continue
      }
      let turn = await sendNext(from: account, failures: &failures)
      account.lock.unlock()
      switch turn {
      case .next: continue
      case .wait(let delay): await wakeup.wait(orAfter: delay, sleep: sleep)
      case .stop: return
      }
    }
  }

  /// How soon a service that found another sending from the outbox tries again.
  static let outboxLockRetry: Duration = .milliseconds(100)

  /// Sends the oldest message, once, and settles it; says what to do next.
  private func sendNext(from account: ChatAccount, failures: inout Int) async -> Turn {
    let item: QueuedItem<OutgoingMessage>?
    do {
      item = try await account.outbox.peek(limit: 1).first
    } catch {
      // Shutting down: a read cut short says nothing about the outbox.
      if error is CancellationError || Task.isCancelled { return .stop }
      logger.error("Cannot read the outbox; trying again: \(error)")
      return .wait(configuration.maxRetryDelay)
    }
    guard let item else { return .wait(nil) }
    let outcome = await deliver(item.element, from: account)
    guard !Task.isCancelled else { return .stop }
    switch outcome {
    case .sent(let message):
      failures = 0
      retryReason.withLock { $0 = nil }
      await settle(item, as: message, in: account)
      return .next
    case .refused(let reason):
      failures = 0
      logger.warning("The server refused message \(item.element.clientMessageID): \(reason)")
      var failed = pendingRecord(of: item.element, in: account)
      failed.state = .failed
      failed.failureReason = reason
      await settle(item, as: failed, in: account)
      return .next
    case .retry(let reason):
      retryReason.withLock { $0 = reason }
      failures += 1
      let delay = min(configuration.retryDelay * (1 << min(failures - 1, 16)), configuration.maxRetryDelay)
      logger.info("Message \(item.element.clientMessageID) waits \(delay) to be sent again: \(reason)")
      return .wait(delay)
    }
  }

  /// Stores what became of `item`, then takes it off the outbox: a crash between the two sends it again, and the
  /// server, seeing its client message id, answers with the message it stored the first time.
  private func settle(
    _ item: QueuedItem<OutgoingMessage>, as message: Message, in account: ChatAccount
  ) async {
    await show(message, in: account, added: false)
    do {
      _ = try await account.outbox.acknowledge([item.id])
    } catch {
      logger.error("Cannot take message \(item.element.clientMessageID) off the outbox; it goes again: \(error)")
      return
    }
    _ = settled.publish(message)
    // A failed message keeps its image copies for `resend(_:)`.
    if message.state == .sent { removeImages(item.element.images, of: account) }
  }

  private func pendingRecord(of outgoing: OutgoingMessage, in account: ChatAccount) -> Message {
    Message(
      id: nil, clientMessageID: outgoing.clientMessageID, conversationID: outgoing.conversationID,
      senderID: outgoing.senderID, text: outgoing.text,
      images: outgoing.images.map { account.images.appendingPathComponent($0).path }, createdAt: now(),
      state: .pending)
  }

  /// One attempt: the multipart body written to a file beside the images, streamed to the server. A message whose
  /// sender is not signed in when the attempt starts waits in their outbox, for their next sign-in.
  func deliver(_ outgoing: OutgoingMessage, from account: ChatAccount) async -> Delivery {
    guard let user = accounts.sessions.currentUser, user.id == account.userID, user.id == outgoing.senderID else {
      return .retry("its sender, \(outgoing.senderID), is not signed in")
    }
    var form = MultipartFormData()
    form.append(outgoing.text, name: "text")
    form.append(outgoing.clientMessageID, name: "clientMessageId")
    let body = account.images.appendingPathComponent("\(outgoing.clientMessageID).body")
    defer { try? FileManager.default.removeItem(at: body) }
    do throws(MultipartError) {
      for name in outgoing.images {
        try form.append(fileAt: account.images.appendingPathComponent(name), name: "images")
      }
      _ = try form.write(to: body, limits: Self.limits)
    } catch {
      return error.kind == .writeFailed ? .retry(error.description) : .refused(error.description)
    }
    let route = ChatRouter.Route.send(
      conversationID: outgoing.conversationID, body: body, contentType: form.contentType)
    do {
      let sent: ChatWire.Message = try await accounts.sessions.client.send(.json(ChatRouter(route, baseURL: baseURL)))
      var message = sent.record
      message.clientMessageID = outgoing.clientMessageID
      return .sent(message)
    } catch let error as NetworkError {
      return Self.passes(error) ? .retry(error.description) : .refused(error.description)
    } catch {
      return .retry("\(error)")
    }
  }

  /// Whether a send that failed with `error` may succeed later as it is: no answer, a busy or failing server, an
  /// answer that could not be read, or a session that needs signing in again; not a refusal of this message.
  static func passes(_ error: NetworkError) -> Bool {
    switch error.kind {
    case .transport, .rateLimited, .decoding, .sessionExpired: return true
    case .status, .server:
      let status = error.statusCode ?? 0
      return status >= 500 || status == 408 || status == 429 || status == 401
    default: return false
    }
  }
}
