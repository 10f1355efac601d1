import Domain
import Foundation
import KeelConcurrency
import Logging
import Persistence

/// Keeps one open conversation's store in step with the server: catch-ups over REST, pushes from the socket held
/// while one runs, and the window of messages its screen shows (Documentation/Decisions/0014).
actor ConversationSync {
  /// A page of the server's messages: after a message, before one, or the newest; `brief`, without their text and
  /// images.
  typealias FetchPage =
    @Sendable (_ after: String?, _ before: String?, _ limit: Int, _ brief: Bool) async throws -> ChatWire.Page
  /// How far each member has read.
  typealias FetchReads = @Sendable () async throws -> ChatWire.Reads
  /// The messages changed after a change number, at most `limit` of them; `brief`, without their text and images.
  typealias FetchChanges = @Sendable (_ since: Int, _ limit: Int, _ brief: Bool) async throws -> ChatWire.Changes

  nonisolated let id: String
  nonisolated let snapshots: Broadcast<ConversationSnapshot>
  let store: ChatStore
  let fetch: FetchPage
  let fetchChanges: FetchChanges?
  let fetchReads: FetchReads?
  let configuration: ChatConfiguration
  let logger: Logger
  private let sleep: @Sendable (Duration) async throws -> Void

  /// How many of the newest messages the window shows: a page at first, more as messages arrive or older pages load.
  var shown: Int
  private var status = ConversationSnapshot.Status.stored
  private var catchingUp = false
  private var catchUpAgain = false
  /// Pushes that came during a catch-up, applied after it.
  private var held: [Message] = []
  private var retry: Task<Void, Never>?
  private var failures = 0
  var stopped = false
  /// The number (``Message/seq``) up to which every message is stored, as far as this sync knows: set by
  /// each catch-up, moved on by each push that follows it; `nil` before the first catch-up.
  private var heard: Int?
  /// Whether a push came since the last silence check.
  private var heardSinceCheck = false
  private var watcher: Task<Void, Never>?
  private let silenceCheck: SilenceCheck?
  /// The number of the last ``publish()`` begun, and of the last one shown.
  private var publishing = 0
  private var published = 0
  /// The conversation's change number the current catch-up's first page came with: where its changes are caught up
  /// to when it had none to catch up from.
  var pageVersion: Int?

  /// What checks a live conversation that hears nothing: how it waits ``ChatConfiguration/silenceCheckInterval``,
  /// and whether pushes should be coming now (the socket is connected).
  struct SilenceCheck: Sendable {
    let sleep: @Sendable (Duration) async throws -> Void
    let following: @Sendable () -> Bool
  }

  init(
    id: String, store: ChatStore, fetch: @escaping FetchPage, fetchReads: FetchReads? = nil,
    fetchChanges: FetchChanges? = nil, configuration: ChatConfiguration, logger: Logger,
    sleep: @escaping @Sendable (Duration) async throws -> Void,
    silenceCheck: SilenceCheck? = nil
  ) {
    self.id = id
    self.store = store
    self.fetch = fetch
    self.fetchChanges = fetchChanges
    self.fetchReads = fetchReads
    self.configuration = configuration
    self.logger = logger
    self.sleep = sleep
    shown = configuration.pageSize
    snapshots = Broadcast(ConversationSnapshot(messages: [], status: .stored), buffering: .bufferingNewest(1))
    self.silenceCheck = silenceCheck
  }

  /// Shows what the store has; the first catch-up follows (the service starts it).
  func showStored() async {
    try? await store.touch(id)
    await publish()
  }

  // MARK: - Catch-up

  /// Starts a catch-up, or asks for one more after the catch-up running now if one is: from the sync point (the end of the
  /// last catch-up) to the newest, page by page; from the newest page when there is no sync point; pushes that
  /// arrive meanwhile are held and applied after it. On failure the stored messages stay and it tries again after a
  /// growing wait.
  ///
  /// Pushes are held from this call on, so that the caller (the socket's loop, as it sees a connection) knows that
  /// every push it passes on after it waits for the catch-up.
  func requestCatchUp() {
    guard !stopped else { return }
    guard !catchingUp else {
      catchUpAgain = true
      return
    }
    catchingUp = true
    retry?.cancel()
    retry = nil
    Task { await self.catchUp() }
    if watcher == nil, let silenceCheck {
      let interval = configuration.silenceCheckInterval
      watcher = Task { [weak self] in
        while (try? await silenceCheck.sleep(interval)) != nil {
          guard let self, await self.checkSilence(following: silenceCheck.following) else { return }
        }
      }
    }
  }

  private func catchUp() async {
    status = .catchingUp
    await publish()
    var failure: (any Error)?
    repeat {
      catchUpAgain = false
      do {
        try await catchUpOnce()
        failure = nil
      } catch {
        failure = error
      }
    } while catchUpAgain && !stopped
    // Caught up to the newest: everything up to the newest number stored is here.
    if failure == nil { heard = (try? await store.newestSeq(in: id)) ?? 0 }
    // Pushes that came meanwhile: the loop takes the ones that come while it stores these, then the window goes live.
    var gap = false
    while !held.isEmpty {
      let batch = held
      held = []
      if await apply(batch).gap { gap = true }
    }
    catchingUp = false
    guard !stopped else { return }
    if let failure {
      status = .behind(reason: "\(failure)")
      scheduleRetry()
      logger.info("Catching up \(id) failed; trying again: \(failure)")
    } else {
      failures = 0
      status = .live
    }
    await publish()
    if gap, failure == nil { requestCatchUp() }
  }

  private func scheduleRetry() {
    failures += 1
    let delay = min(configuration.retryDelay * (1 << min(failures - 1, 16)), configuration.maxRetryDelay)
    let sleep = sleep
    retry = Task { [weak self] in
      guard (try? await sleep(delay)) != nil else { return }
      await self?.requestCatchUp()
    }
  }

  // MARK: - Pushes and local changes

  /// A pushed message: held during a catch-up, stored (once) otherwise. One numbered past the next the sync expects
  /// (a push before it was lost) is shown at once and starts a catch-up, which brings what was missed; a duplicate or
  /// an older one is ignored. Its sender has read up to it: their read position moves in the same write that stores
  /// it (at once when it is held).
  ///
  /// - Returns: Whether the store held the message before this push; `nil` when the sync has stopped and did not
  ///   take it.
  @discardableResult
  func receive(_ message: Message) async -> Bool? {
    guard !stopped else { return nil }
    heardSinceCheck = true
    if catchingUp, let messageID = message.id {
      // Asked before it is held: the catch-up may end, and store it, while this waits for the store.
      let known = (try? await store.arrival(of: messageID, from: message.senderID, in: id, seq: message.seq)) ?? false
      if catchingUp {
        held.append(message)
        return known
      }
      if await apply([message]).gap { requestCatchUp() }
      return known
    }
    if catchingUp {
      held.append(message)
      return false
    }
    let (gap, known) = await apply([message], arrival: message)
    if gap { requestCatchUp() }
    return known
  }

  /// Stores pushed `messages` and moves ``heard`` on; returns whether one skips past a number not stored (a gap), and
  /// whether the store held `arrival` (one of them) already, whose sender's read position moves in the same write.
  private func apply(_ messages: [Message], arrival: Message? = nil) async -> (gap: Bool, known: Bool) {
    let known = heard
    let fresh = messages.filter { message in
      guard let seq = message.seq, let known else { return true }
      return seq > known
    }
    guard !fresh.isEmpty else {
      // A message heard already (pushed twice, or brought by a page first): asked of the store all the same, which
      // moves its sender's read position as the first push would have.
      guard let arrival, let messageID = arrival.id else { return (false, true) }
      let known = try? await store.arrival(of: messageID, from: arrival.senderID, in: id, seq: arrival.seq)
      return (false, known ?? true)
    }
    let inserted: [Message]
    // What the write read of the window's extension, when it could (`publish(extending:with:)`).
    var extended: WindowExtension?
    // Whether the write on this thread calls for an eviction, which waits until the window is shown.
    var evictionDue = false
    do {
      if let arrival, let messageID = arrival.id, let seq = arrival.seq,
        fresh.contains(where: { $0.id == messageID })
      {
        let base = snapshots.current
        if publishing == published, let newest = base.messages.last {
          let begun = publishing
          let written = try store.upsertNow(
            fresh, movingReadPositionOf: arrival.senderID, in: id, to: messageID, seq: seq,
            readingAfter: newest.position, limit: shown + fresh.count)
          inserted = written.inserted
          evictionDue = written.evictionDue
          extended = WindowExtension(
            base: base, begun: begun, newer: written.newer, readPositions: written.readPositions)
        } else {
          inserted = try await store.upsert(
            fresh, movingReadPositionOf: arrival.senderID, in: id, to: messageID, seq: seq)
        }
      } else {
        inserted = try await store.upsert(fresh)
      }
      shown += inserted.count
    } catch {
      // Not lost: a catch-up reads from the sync point, which pushes never move.
      logger.warning("Cannot store pushed messages of \(id); a catch-up brings them: \(error)")
      return (true, false)
    }
    let arrivalKnown = arrival.map { arrival in !inserted.contains { $0.id == arrival.id } } ?? true
    // A message that was not new updated a row the window may show: the whole window is read again.
    if inserted.count != fresh.count {
      await publish()
    } else if let extended, publish(extending: extended, with: inserted) {
      // Shown from what the write read.
    } else {
      await publish(after: inserted)
    }
    // As after every other write, a failed eviction is tried again after the next one.
    if evictionDue { try? await store.evictAfterGrowth() }
    guard var heard = known else { return (false, arrivalKnown) }
    // A catch-up may have moved it on while this one waited for the store.
    defer { self.heard = max(self.heard ?? heard, heard) }
    for seq in fresh.compactMap(\.seq).sorted() where seq > heard {
      // A number further on is no gap when what lies between is stored already (the outbox's own answers).
      if seq > heard + 1 {
        let between = (heard + 1)...(seq - 1)
        guard (try? await store.count(numbered: between, in: id)) == between.count else {
          logger.info("A push of \(id) skipped from \(heard) to \(seq); catching up on what was missed.")
          return (true, arrivalKnown)
        }
      }
      heard = seq
    }
    return (false, arrivalKnown)
  }

  /// A pushed change of a message (edited, deleted, reacted to, replied to): stored when the store holds the message
  /// and the copy is newer than its own, and shown. Not held during a catch-up: the change number decides which copy
  /// is newer, whatever order they come in.
  func receiveChange(_ message: Message) async {
    guard !stopped else { return }
    heardSinceCheck = true
    do {
      guard try await store.applyChanges([message]) > 0 else { return }
    } catch {
      // Not lost: the next catch-up asks for every change since the last it caught up to.
      logger.warning("Cannot store a pushed change of \(id); the next catch-up brings it: \(error)")
      return
    }
    await publish()
  }

  /// Asks the server for the conversation's newest message, brief (one small request), when it is live, the socket
  /// connected, and no push came since the last check: one the store does not have starts a catch-up. Returns
  /// `false` once the sync is stopped.
  private func checkSilence(following: @Sendable () -> Bool) async -> Bool {
    guard !stopped else { return false }
    // A push that comes while this check asks counts for the next interval.
    let heardSomething = heardSinceCheck
    heardSinceCheck = false
    guard !heardSomething, status == .live, !catchingUp, following() else { return true }
    do {
      guard let newest = try await fetch(nil, nil, 1, true).messages.last else { return true }
      // By id, not by number alone: messages stored before numbers came have none, and the newest may be one.
      let missed = try await !store.contains(serverID: newest.id)
      guard missed, !stopped else { return !stopped }
      logger.info("\(id) heard nothing, and the server has newer messages; catching up.")
      requestCatchUp()
    } catch {
      logger.debug("The silence check of \(id) failed; the next one tries again: \(error)")
    }
    return !stopped
  }

  /// A message the outbox added (`added`) or changed in the store: the window shows it.
  func changed(added: Int = 0) async {
    shown += added
    await publish()
  }

  /// Stops: no more catch-ups, pushes or snapshots.
  func stop() {
    stopped = true
    retry?.cancel()
    retry = nil
    watcher?.cancel()
    watcher = nil
    held = []
    snapshots.update { $0.status = .closed }
    snapshots.finish()
  }

  // MARK: - The window

  func window() async throws -> [Message] {
    try await store.messages(in: id, limit: shown)
  }

  /// Publishes the window after `inserted` were stored, and nothing else changed in the same write (every message of
  /// it was new: an update in place, such as the user's pending copy becoming sent, is for ``publish()``). When no
  /// other publish is in flight and each of them sorts
  /// after the newest message shown, the window shown is still the store's up to there: only what is newer is read
  /// (with the read positions), not the whole window again, which was most of a pushed message's time to the screen.
  /// Otherwise, and when more is newer than the window holds, the whole window is read (``publish()``).
  func publish(after inserted: [Message]) async {
    let base = snapshots.current
    guard !stopped, publishing == published, !inserted.isEmpty, let newest = base.messages.last,
      Self.sort(inserted, after: newest)
    else { return await publish() }
    publishing += 1
    let number = publishing
    do {
      let (newer, positions) = try await store.window(of: id, after: newest.position, limit: shown)
      guard newer.count < shown else { return await publish() }
      guard number > published, !stopped else { return }
      published = number
      show(base, then: newer, readPositions: positions)
    } catch {
      guard !stopped else { return }
      logger.warning("Cannot read the messages of \(id) from the store: \(error)")
      snapshots.update { $0.status = status }
    }
  }

  /// A position as the store orders it: its time to the millisecond, then its key.
  private static func order(_ position: Message.Position) -> (Int64, String) {
    (ChatStore.milliseconds(position.createdAt), position.key)
  }

  /// The window as it was shown when a push's write began, and what that write read after its newest message.
  struct WindowExtension {
    let base: ConversationSnapshot
    /// ``publishing`` when the write began, none in flight.
    let begun: Int
    let newer: [Message]
    let readPositions: [String: ReadPosition]
  }

  /// Publishes the window `extended` read in the write that stored `inserted`, as ``publish(after:)`` would have read
  /// it, when that still holds: no publish began while the write ran (so the window shown is the one it extended),
  /// each of `inserted` sorts after the newest message shown, and fewer are newer than the window holds.
  ///
  /// - Returns: Whether it published; otherwise the caller publishes another way.
  private func publish(extending extended: WindowExtension, with inserted: [Message]) -> Bool {
    guard !stopped, publishing == extended.begun, published == extended.begun,
      let newest = extended.base.messages.last, Self.sort(inserted, after: newest), extended.newer.count < shown
    else { return false }
    publishing += 1
    published = publishing
    show(extended.base, then: extended.newer, readPositions: extended.readPositions)
    return true
  }

  /// Whether each of `inserted` sorts after `newest`, the newest message shown: then the window shown is still the
  /// store's up to there, and only what is newer need be added to it.
  private static func sort(_ inserted: [Message], after newest: Message) -> Bool {
    inserted.allSatisfy { order($0.position) > order(newest.position) }
  }

  /// Publishes `base`'s messages with `newer` after them, the newest ``shown`` of them, and `readPositions`.
  private func show(_ base: ConversationSnapshot, then newer: [Message], readPositions: [String: ReadPosition]) {
    snapshots.publish(
      ConversationSnapshot(
        messages: Array((base.messages + newer).suffix(shown)), status: status, readPositions: readPositions))
  }

  func publish() async {
    guard !stopped else { return }
    publishing += 1
    let number = publishing
    do {
      let (messages, positions) = try await store.window(of: id, limit: shown)
      // Publishes overlap at the read: one begun later read the store later (a later snapshot of it) and may have
      // shown what it read already; this older read would take its place, a message stored since missing from it.
      guard number > published, !stopped else { return }
      published = number
      snapshots.publish(ConversationSnapshot(messages: messages, status: status, readPositions: positions))
    } catch {
      // A read that failed because the conversation closed meanwhile must not put back a status over `.closed`.
      guard !stopped else { return }
      logger.warning("Cannot read the messages of \(id) from the store: \(error)")
      snapshots.update { $0.status = status }
    }
  }
}
