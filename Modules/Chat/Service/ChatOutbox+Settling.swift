import KeelConcurrency
import Logging
import Persistence

extension ChatOutbox {
  /// A message the server has, being stored as sent and taken off the outbox while the next one goes.
  struct Settling {
    /// Its outbox item's id: still in the outbox until the task is done, and not sent again meanwhile.
    let itemID: Int64
    let task: Task<Void, Never>
    private let done: Locked<Bool>

    /// Settles `item` as `message` in a task of its own, which wakes the sender when it is done.
    init(_ item: QueuedItem<OutgoingMessage>, as message: Message, in account: ChatAccount, by outbox: ChatOutbox) {
      let done = Locked(false)
      itemID = item.id
      self.done = done
      task = Task {
        await outbox.settle(item, as: message, in: account)
        done.withLock { $0 = true }
        outbox.wakeup.signal()
      }
    }

    /// Whether it has settled.
    var isDone: Bool { done.withLock { $0 } }
  }

  /// Waits for the message `settling` to have settled.
  func finishSettling(_ settling: inout Settling?) async {
    await settling?.task.value
    settling = nil
  }

  /// Stores what became of `item`, then takes it off the outbox: a crash between the two sends it again, and the
  /// server, seeing its client message id, answers with the message it stored the first time.
  func settle(
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
    // A failed message keeps its image and file copies for `resend(_:)`.
    if message.state == .sent {
      removeImages(item.element.images + (item.element.files ?? []).map(\.copy), of: account)
    }
  }
}
