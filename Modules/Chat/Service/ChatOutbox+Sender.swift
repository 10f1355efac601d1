import Domain
import Foundation
import KeelConcurrency
import KeelErrors
import KeelFiles
import Logging
import Networking
import Persistence

extension ChatOutbox {
  /// What one attempt to send came to.
  enum Delivery {
    case sent(Message)
    /// For good: the server refused it, or it cannot be built; `reason` says why.
    case refused(String)
    /// For now: the network, the server's health or the session; sent again after a wait.
    case retry(String)
    /// The app cancelled it (``ChatService/cancel(_:)``): failed, and resendable.
    case cancelled
  }

  /// What the sender does after one turn.
  enum Turn {
    /// Sends the next message at once.
    case next
    /// Waits for a new message, or `delay` when one is given.
    case wait(Duration?)
    /// Stops: the service is shutting down.
    case stop

    /// Whether it is ``next``.
    var isNext: Bool {
      if case .next = self { true } else { false }
    }
  }

  /// The outbox's sender: one message at a time, oldest first, each stored as sent while the next one goes; after a
  /// failure that may pass, it waits (a growing delay, cut short when the network comes back) and sends the same
  /// message again, so that the order holds.
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
      // While a message settles the next goes, as soon as there is one; the lock is held until the last has settled
      // (its files are removed then).
      var settling: Settling?
      var turn: Turn
      while true {
        turn = await sendNext(from: account, failures: &failures, settling: &settling)
        guard let current = settling else { break }
        if turn.isNext { continue }
        guard case .wait(nil) = turn, !Task.isCancelled else { break }
        // The outbox has nothing more yet: a new message, or the end of the settle, wakes the sender.
        await wakeup.wait()
        if current.isDone {
          settling = nil
          turn = .next
          break
        }
      }
      await settling?.task.value
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

  /// Sends the oldest message but the one `settling`, once, and settles it; says what to do next. A message the server
  /// took settles while the next one goes (in `settling`, after the one before it), so that a slow store never holds
  /// the next message back. Every other outcome waits for that settle first, so that what the app hears of the messages
  /// comes in their order.
  func sendNext(from account: ChatAccount, failures: inout Int, settling: inout Settling?) async -> Turn {
    let item: QueuedItem<OutgoingMessage>?
    do {
      let skipped = settling?.itemID
      let limit = skipped == nil ? 1 : 2
      // Read on this task's thread: the hop to a reader's queue and back took longer than the read. A payload that no
      // longer decodes goes through `peek`, which sets it aside.
      var items = try account.outbox.peekNow(limit: limit)
      if items == nil { items = try await account.outbox.peek(limit: limit) }
      item = items?.first { $0.id != skipped }
    } catch {
      // Shutting down: a read cut short says nothing about the outbox.
      if error is CancellationError || Task.isCancelled { return .stop }
      logger.error("Cannot read the outbox; trying again: \(error)")
      return .wait(configuration.maxRetryDelay)
    }
    guard let item else { return .wait(nil) }
    if let change = item.element.change {
      await finishSettling(&settling)
      return await send(change, of: item, from: account, failures: &failures)
    }
    let outcome = await deliverCancellably(item.element, from: account)
    guard !Task.isCancelled else { return .stop }
    switch outcome {
    case .sent(let message):
      failures = 0
      retryReason.withLock { $0 = nil }
      await finishSettling(&settling)
      settling = Settling(item, as: message, in: account, by: self)
      return .next
    case .refused(let reason):
      await finishSettling(&settling)
      failures = 0
      logger.warning("The server refused message \(item.element.clientMessageID): \(reason)")
      var failed = pendingRecord(of: item.element, in: account)
      failed.state = .failed
      failed.failureReason = reason
      await settle(item, as: failed, in: account)
      return .next
    case .retry(let reason):
      // The one settling goes on meanwhile: the loop waits for it before it waits to try again.
      return retry(item.element, because: reason, failures: &failures)
    case .cancelled:
      await finishSettling(&settling)
      logger.info("Message \(item.element.clientMessageID) was cancelled before the server had it.")
      var failed = pendingRecord(of: item.element, in: account)
      failed.state = .failed
      failed.failureReason = ChatOutbox.cancelledReason
      await settle(item, as: failed, in: account)
      return .next
    }
  }

  /// ``deliver(_:from:)`` in a task of its own, which ``cancel(_:)`` cancels when the app cancels this message; a
  /// message cancelled before its turn is not sent at all.
  func deliverCancellably(_ outgoing: OutgoingMessage, from account: ChatAccount) async -> Delivery {
    let id = outgoing.clientMessageID
    let attempt = Task { await deliver(outgoing, from: account) }
    let cancelledAlready = cancellations.withLock { state in
      if state.cancelled.remove(id) != nil { return true }
      state.current = (id, attempt)
      return false
    }
    if cancelledAlready { attempt.cancel() }
    let delivery = await withTaskCancellationHandler {
      await attempt.value
    } onCancel: {
      attempt.cancel()
    }
    let cancelled = cancellations.withLock { state in
      state.current = nil
      return state.cancelled.remove(id) != nil || cancelledAlready
    }
    if case .sent = delivery { return delivery }
    return cancelled && !Task.isCancelled ? .cancelled : delivery
  }

  /// Waits a growing delay before `outgoing` goes again, after a failure that may pass.
  func retry(_ outgoing: OutgoingMessage, because reason: String, failures: inout Int) -> Turn {
    retryReason.withLock { $0 = reason }
    failures += 1
    let delay = min(configuration.retryDelay * (1 << min(failures - 1, 16)), configuration.maxRetryDelay)
    let what = outgoing.change == nil ? "Message" : "Change"
    logger.info("\(what) \(outgoing.clientMessageID) waits \(delay) to be sent again: \(reason)")
    return .wait(delay)
  }

  func pendingRecord(of outgoing: OutgoingMessage, in account: ChatAccount) -> Message {
    Message(
      id: nil, clientMessageID: outgoing.clientMessageID, conversationID: outgoing.conversationID,
      senderID: outgoing.senderID, text: outgoing.text,
      images: outgoing.images.map { account.images.appendingPathComponent($0).path }, createdAt: now(),
      state: .pending, replyTo: outgoing.replyTo,
      files: (outgoing.files ?? []).map { file in
        Message.File(
          name: file.name, size: file.size, contentType: file.contentType,
          url: account.images.appendingPathComponent(file.copy).path)
      })
  }

  /// One attempt: the multipart body sent from memory for a message of text alone, or written to a file beside the
  /// images and streamed to the server. A message whose sender is not signed in when the attempt starts waits in
  /// their outbox, for their next sign-in.
  func deliver(_ outgoing: OutgoingMessage, from account: ChatAccount) async -> Delivery {
    guard let user = accounts.sessions.currentUser, user.id == account.userID, user.id == outgoing.senderID else {
      return .retry("its sender, \(outgoing.senderID), is not signed in")
    }
    if let lost = outgoing.lostFile(in: account.images) { return .refused(lost) }
    var form = MultipartFormData()
    form.append(outgoing.text, name: "text")
    form.append(outgoing.clientMessageID, name: "clientMessageId")
    if let replyTo = outgoing.replyTo { form.append(replyTo, name: "replyTo") }
    let file = account.images.appendingPathComponent("\(outgoing.clientMessageID).body")
    var written = false
    defer { if written { try? FileManager.default.removeItem(at: file) } }
    let body: HTTPBody
    do throws(MultipartError) {
      for name in outgoing.images {
        try form.append(fileAt: account.images.appendingPathComponent(name), name: "images")
      }
      for file in outgoing.files ?? [] {
        try form.append(
          fileAt: account.images.appendingPathComponent(file.copy), name: "files", filename: file.name,
          contentType: file.contentType)
      }
      // Text alone (at most 40,000 bytes of it) is sent from memory: one hand-over to the transport, no file written and
      // read back, which was a good part of a text message's time to its reader.
      if form.fileCount == 0 {
        body = .data(try form.encoded(limits: Self.bodyLimits), contentType: form.contentType)
      } else {
        written = true
        _ = try form.write(to: file, limits: Self.bodyLimits)
        body = .file(file, contentType: form.contentType)
      }
    } catch {
      return error.kind == .writeFailed ? .retry(error.description) : .refused(error.description)
    }
    let route = ChatRouter.Route.send(conversationID: outgoing.conversationID, body: body)
    var request = APIRequest<ChatWire.Message>.json(ChatRouter(route, baseURL: baseURL))
    let clientMessageID = outgoing.clientMessageID
    request.progress = { [uploads] progress in
      _ = uploads.publish(UploadProgress(clientMessageID: clientMessageID, progress: progress))
    }
    do {
      let sent = try await accounts.sessions.client.send(request)
      var message = sent.record
      message.clientMessageID = outgoing.clientMessageID
      return .sent(message)
    } catch let error as NetworkError {
      return Self.passes(error) ? .retry(error.description) : .refused(error.description)
    } catch {
      return .retry("\(error)")
    }
  }

  /// How far the upload of one message has come, for ``ChatService/uploadProgress(of:)``.
  struct UploadProgress: Sendable, Equatable {
    let clientMessageID: String
    let progress: TransferProgress
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
