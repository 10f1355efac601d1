import Foundation
import KeelConcurrency
import Networking

extension ChatOutbox {
  /// The messages cancelled before their turn came, and the attempt under way, which a cancel stops.
  struct Cancellations {
    var cancelled: Set<String> = []
    var current: (clientMessageID: String, attempt: Task<Delivery, Never>)?
  }

  /// Why a message the app cancelled failed.
  static let cancelledReason = "Cancelled before the server had it."

  /// Stops sending a pending message (``ChatService/cancel(_:)``).
  func cancel(_ message: Message) async throws {
    let account = try accounts.current()
    guard message.state == .pending, let id = message.clientMessageID, message.senderID == account.userID else {
      throw ChatError(.invalidInput, "Only a pending message of the signed-in user's can be cancelled.")
    }
    let stored = try await stored("read a message") {
      try await account.store.message(clientMessageID: id, in: message.conversationID, from: message.senderID)
    }
    guard stored?.state == .pending else {
      throw ChatError(.invalidInput, "Message \(id) is no longer pending: the server has it, or it failed.")
    }
    let running = cancellations.withLock { state in
      state.cancelled.insert(id)
      return state.current?.clientMessageID == id ? state.current?.attempt : nil
    }
    running?.cancel()
    wakeup.signal()
  }

  /// How far the upload of a pending message has come (``ChatService/uploadProgress(of:)``).
  func uploadProgress(of message: Message) -> AsyncStream<TransferProgress> {
    let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
    guard let id = message.clientMessageID, message.state == .pending, !isShutDown.withLock({ $0 }) else {
      continuation.finish()
      return stream
    }
    // Both subscribed before the store is read, so that nothing settles unseen in between.
    let progress = uploads.updates()
    let settledMessages = settled.updates()
    let store = try? accounts.current().store
    let task = Task {
      let pending = try? await store?.message(
        clientMessageID: id, in: message.conversationID, from: message.senderID)
      guard pending?.state == .pending else { return continuation.finish() }
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for await case let update? in progress where update.clientMessageID == id {
            continuation.yield(update.progress)
          }
        }
        group.addTask {
          // Past the replayed value, which may be an earlier failure of this message, resent since.
          for await case let settled? in settledMessages.dropFirst() where settled.clientMessageID == id { return }
        }
        await group.next()
        group.cancelAll()
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}
