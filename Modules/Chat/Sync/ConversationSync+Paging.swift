import Domain
import Foundation
import KeelConcurrency
import Logging
import Persistence

extension ConversationSync {
  /// One catch-up: what changed since the last one (edits, deletions, reactions, replies of stored messages), then the
  /// messages after the sync point; then the change number it caught up to.
  func catchUpOnce() async throws {
    pageVersion = nil
    var version: Int?
    if let fetchChanges, let since = try await store.changeVersion(in: id) {
      version = try await catchUpChanges(since: since, fetchChanges)
    }
    try await catchUpMessages()
    if let version = version ?? pageVersion { try await store.setChangeVersion(version, in: id) }
    await catchUpReads()
  }

  /// How far each member has read, as the server has it now; a failure leaves the positions known (pushes move them).
  private func catchUpReads() async {
    guard let fetchReads, !stopped else { return }
    do {
      let reads = try await fetchReads().reads
      let positions = Dictionary(
        reads.map { ($0.userId, ReadPosition(messageID: $0.messageId, seq: $0.seq)) }, uniquingKeysWith: { $1 })
      try await store.moveReadPositions(positions, in: id)
    } catch {
      logger.info("The read positions of \(id) cannot be fetched; pushes bring them: \(error)")
    }
  }

  /// Stores what changed after `since` about the messages the store holds, page by page; returns the conversation's
  /// change number as the first page was read (anything changed later is asked again next time, harmlessly). Past
  /// the gap bound, the stored messages are dropped instead, and the message catch-up starts from the newest page.
  private func catchUpChanges(since start: Int, _ fetchChanges: FetchChanges) async throws -> Int? {
    var since = start
    var first: Int?
    var read = 0
    while !stopped {
      let page = try await changesFitting(since, fetchChanges)
      first = first ?? page.version
      if try await store.applyChanges(page.messages.map(\.record)) > 0 { await publish() }
      read += page.messages.count
      guard page.hasMore, let last = page.messages.last?.version, last > since else { break }
      if read >= configuration.maxCatchUpMessages {
        logger.info("\(id) has more than \(configuration.maxCatchUpMessages) changes to catch up on: starting again.")
        try await store.resetMessages(in: id)
        return nil
      }
      since = last
    }
    return first
  }

  /// A page of changes, asked again for half as many while the answer is too large to take, as ``fetchFitting(_:_:_:)``
  /// does; a single change too large is asked for brief, and its stored copy stays as it is (a brief copy never
  /// replaces a whole one), so that the catch-up pages past it.
  private func changesFitting(_ since: Int, _ fetchChanges: FetchChanges) async throws -> ChatWire.Changes {
    var limit = configuration.catchUpPageSize
    while true {
      do {
        return try await fetchChanges(since, limit, false)
      } catch let error as ChatError where error.requestFailure?.urlError?.code == .dataLengthExceedsMaximum {
        guard limit > 1 else {
          logger.info("A change of \(id) is too large to take; its message stays as stored.")
          let page = try await fetchChanges(since, 1, true)
          return ChatWire.Changes(
            messages: page.messages.map { $0.unavailable }, version: page.version, hasMore: page.hasMore)
        }
        limit /= 2
      }
    }
  }

  private func catchUpMessages() async throws {
    guard var since = try await store.syncPoint(in: id) else { return try await startFromNewest() }
    guard !since.isEmpty else { return try await catchUpFromStart() }
    var read = 0
    // The next page, asked for while this one is stored: the server's answer and the store's write overlap, where one
    // waited for the other. It is asked after the message the store is about to move its sync point to, so it is the
    // page the loop would ask for next; a catch-up that ends or fails first cancels it.
    var nextPage: Task<ChatWire.Page, any Error>?
    defer { nextPage?.cancel() }
    while !stopped {
      let page: ChatWire.Page
      do {
        if let asked = nextPage {
          nextPage = nil
          page = try await asked.value
        } else {
          page = try await fetchFitting(since, nil, configuration.catchUpPageSize)
        }
      } catch let error as ChatError where error.requestFailure?.serverCode == "E404" {
        // The message the last catch-up ended with is gone (deleted, or another server's store): start again.
        logger.info("The sync point of \(id) is unknown to the server; starting from the newest page.")
        return try await startFromNewest()
      }
      let messages = page.messages.map(\.record)
      if page.hasMore, !messages.isEmpty, messages.last?.id == since { throw ChatError.pagingStalled(id) }
      if page.hasMore, let last = messages.last?.id, read + messages.count < configuration.maxCatchUpMessages {
        let size = configuration.catchUpPageSize
        nextPage = Task { try await self.fetchFitting(last, nil, size) }
      }
      let inserted = try await store.upsert(messages, movingSyncPointOf: id)
      shown += inserted.count
      if let last = messages.last?.id { since = last }
      read += messages.count
      // A page that updated stored messages (the user's pending ones, an edit) is read whole.
      if inserted.count == messages.count { await publish(after: inserted) } else { await publish() }
      guard page.hasMore, !messages.isEmpty else { return }
      if read >= configuration.maxCatchUpMessages {
        logger.info(
          "\(id) is more than \(configuration.maxCatchUpMessages) messages behind: starting from the newest page.")
        return try await startFromNewest()
      }
    }
  }

  /// Drops the stored sent messages and stores the newest page, whose last message becomes the sync point; an empty
  /// conversation gets the sync point ``fromStart``, so that the next catch-up takes everything.
  func startFromNewest() async throws {
    let page = try await fetchFitting(nil, nil, configuration.catchUpPageSize)
    try await store.resetMessages(in: id)
    let messages = page.messages.map(\.record)
    try await store.upsert(messages)
    try await store.setSyncPoint(messages.last?.id ?? Self.fromStart, in: id)
    shown = max(configuration.pageSize, messages.count)
    await publish()
  }

  /// A page as `fetch` brings it, asked again for half as many messages, down to one, while the answer is too large
  /// for the transport to take: a conversation of long messages goes on in smaller pages instead of stopping. A
  /// single message too large to take is asked for brief, without its text and images, and comes back marked
  /// unavailable (``Message/isUnavailable``): the conversation pages past it. A server that cannot answer
  /// brief fails the catch-up, which is retried later.
  func fetchFitting(_ after: String?, _ before: String?, _ limit: Int) async throws -> ChatWire.Page {
    var limit = limit
    while true {
      do {
        let page = try await fetch(after, before, limit, false)
        pageVersion = pageVersion ?? page.version
        return page
      } catch let error as ChatError where error.requestFailure?.urlError?.code == .dataLengthExceedsMaximum {
        guard limit > 1 else {
          logger.info("A message of \(id) is too large to take; it is shown as unavailable.")
          let page = try await fetch(after, before, 1, true)
          return ChatWire.Page(messages: page.messages.map { $0.unavailable }, hasMore: page.hasMore)
        }
        logger.info("A page of \(limit) messages of \(id) is too large to take; asking for \(limit / 2).")
        limit /= 2
      }
    }
  }

  /// The sync point of a conversation that was empty at its last catch-up: everything it holds now is new.
  static let fromStart = ""

  /// Takes every message of a conversation that was empty at its last catch-up: pages back from the newest to the
  /// first, then stores them; past the gap bound, the newest page only, as any gap that large.
  func catchUpFromStart() async throws {
    var page = try await fetchFitting(nil, nil, configuration.catchUpPageSize)
    var messages = page.messages
    while page.hasMore, let oldest = page.messages.first?.id, !stopped {
      guard messages.count < configuration.maxCatchUpMessages else { return try await startFromNewest() }
      page = try await fetchFitting(nil, oldest, configuration.catchUpPageSize)
      let known = Set(messages.map(\.id))
      if page.hasMore, page.messages.allSatisfy({ known.contains($0.id) }) { throw ChatError.pagingStalled(id) }
      messages = page.messages + messages
    }
    let records = messages.map(\.record)
    shown += try await store.upsert(records).count
    if let last = records.last?.id { try await store.setSyncPoint(last, in: id) }
    await publish()
  }

  /// One more page of older messages: the store's, then the server's when the store has no more.
  func loadOlder() async throws -> Bool {
    let current = try await window()
    guard let oldest = current.first else {
      // Nothing shown: the first catch-up has not stored anything yet.
      return false
    }
    let older = try await store.messages(in: id, before: oldest.position, limit: configuration.pageSize)
    if older.count == configuration.pageSize {
      shown += older.count
      await publish()
      return true
    }
    // The store has no more: ask the server for what precedes the oldest message it gave us.
    guard let anchor = (older + current).first(where: { $0.state == .sent && $0.id != nil })?.id else {
      shown += older.count
      await publish()
      return false
    }
    let page = try await fetchFitting(nil, anchor, configuration.pageSize)
    let inserted = try await store.upsert(page.messages.map(\.record))
    shown += older.count + inserted.count
    await publish()
    if page.hasMore, inserted.isEmpty { throw ChatError.pagingStalled(id) }
    return page.hasMore
  }
}
