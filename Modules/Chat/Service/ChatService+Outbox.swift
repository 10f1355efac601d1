import Foundation
import Networking

// MARK: - Sending, through the outbox (`ChatOutbox`)

extension ChatService {
  /// What a message may hold, as the backend takes it (SandboxAPI §7): at most five PNG, JPEG, GIF or WebP images of
  /// 8 MiB each, a text of at most 10,000 characters.
  public static let messageLimits = ChatOutbox.limits

  /// What a message's files may be, beside its images: at most five files of any type, 25 MiB each and 50 MiB
  /// together.
  public static let fileLimits = ChatOutbox.fileLimits

  /// The most characters a message's text may have.
  public static let maxTextLength = ChatOutbox.maxTextLength
  /// The most bytes of UTF-8 a message's text may have: 10,000 characters of four bytes each, and no more however
  /// many combining marks one character carries.
  public static let maxTextBytes = ChatOutbox.maxTextBytes

  /// Sends a message with `text`, up to five images and up to five files: it is checked, written to the durable
  /// outbox with a new client message id, and shown in the conversation as pending at once; the outbox sends it when
  /// it can, and the conversation shows it sent (with the server's id and time) or failed (with the reason, and
  /// ``resend(_:)``).
  ///
  /// The images and files are copied into the outbox (owner-only), so the caller may delete its own at once; the
  /// upload streams from that copy, its progress in ``uploadProgress(of:)``, and ``cancel(_:)`` stops it.
  ///
  /// ```swift
  /// import Chat
  /// import Foundation
  ///
  /// func share(_ report: URL, in conversationID: String, on chat: ChatService) async throws -> Message {
  ///   let pending = try await chat.send("This week's report", files: [report], to: conversationID)
  ///   for await step in chat.uploadProgress(of: pending) {
  ///     print("\(step.completedBytes) of \(step.expectedBytes ?? 0) bytes")
  ///   }
  ///   return await chat.outcome(of: pending)  // sent, or failed with the reason
  /// }
  /// ```
  ///
  /// - Returns: The pending message.
  /// - Throws: `ChatError.Kind.invalidInput` as ``validate(_:images:files:)`` says, before anything is written or
  ///   sent; `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when the outbox cannot keep it (full, or a disk
  ///   failure), and then nothing is sent.
  public func send(_ text: String, images: [URL] = [], files: [URL] = [], to conversationID: String) async throws
    -> Message
  {
    try await outbox.send(text, images: images, files: files, to: conversationID)
  }

  /// The progress of a pending message's upload, bytes sent out of the whole body's, for each attempt (an attempt
  /// after a failure starts again from zero); it ends once the message is sent or failed. Empty for a message that
  /// is not pending, and for a message of text alone, which goes in one piece from memory.
  public func uploadProgress(of message: Message) -> AsyncStream<TransferProgress> {
    outbox.uploadProgress(of: message)
  }

  /// Stops sending a pending message: an upload under way is cut (the server keeps nothing of it), a message still
  /// waiting its turn is not sent; either becomes failed ("Cancelled before the server had it."), keeps its images and
  /// files in the outbox, and ``resend(_:)`` sends it again. Only this process's sending stops: another process
  /// sending from the same directory finishes what it started. A body the server had whole just as the cancel came
  /// is a message it stored: its copy, when it arrives (a push, the next catch-up), shows it sent, and a resend
  /// answers with it rather than send it twice.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a message that is not a pending message of the signed-in user's
  ///   (sent or failed meanwhile); `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage`.
  public func cancel(_ message: Message) async throws {
    try await outbox.cancel(message)
  }

  /// Sends a failed message again, with the same client message id: it becomes pending and goes through the outbox.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a message that is not a failed message of the signed-in user's, or
  ///   whose images are gone; `ChatError.Kind.storage` when the outbox cannot keep it.
  public func resend(_ message: Message) async throws {
    try await outbox.resend(message)
  }

  /// Waits until the outbox has sent or failed `message` (one ``send(_:images:files:to:)`` returned, or any of the signed-in
  /// user's with a client message id), and returns it so: sent with the server's id and time, or failed with the
  /// reason. Returns at once for a message settled already; returns it pending when the calling task is cancelled
  /// first (the outbox keeps it either way). A message another process on the same directory sent from the shared
  /// outbox counts too: the store is read again every ``outcomePollInterval``.
  public func outcome(of message: Message) async -> Message {
    await outbox.outcome(of: message)
  }

  /// How often ``outcome(of:)-(Message)`` reads the store for a message another process may have sent.
  public static let outcomePollInterval = ChatOutbox.pollInterval

  /// Why the outbox's last attempt to send failed for a while (no network, a failing server), or `nil` when its last
  /// attempt succeeded: for a "waiting for the network" banner, or a tool that gives up waiting.
  public var outboxProblem: String? { outbox.problem }

  /// How many of the signed-in user's messages wait in the outbox.
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage`.
  public func outboxCount() async throws -> Int {
    try await outbox.count()
  }

  /// Checks a message as ``send(_:images:files:to:)`` does before anything is written or sent, for a caller that
  /// wants to refuse it earlier still (a command-line tool, before it starts anything).
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a text over ``maxTextLength`` characters or ``maxTextBytes``
  ///   bytes, an empty message, more than five images, an image that is missing, over 8 MiB, or not a PNG, JPEG, GIF
  ///   or WebP image by its bytes, whatever its name, or files past ``fileLimits`` (one missing among them).
  public static func validate(_ text: String, images: [URL], files: [URL] = []) throws {
    try ChatOutbox.validate(text, images: images, files: files)
  }
}
