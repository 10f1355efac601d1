import Clocks
import Domain
import Foundation
import GRDB
import KeelConcurrency
import Logging
import Networking
import Persistence
import TestSupport
import Testing

@testable import Chat

/// A conversation's sync rules on a real store and a scripted server: pushes held during a catch-up, catch-ups that
/// start where the last one ended (not at the newest push), duplicates stored once, a failed catch-up retried.
@Suite("Conversation sync", .timeLimit(.minutes(3)))
struct ConversationSyncTests {
  /// The server's side: a conversation's messages, pages as SandboxAPI §7 cuts them, every request recorded, and a
  /// gate each answer waits at.
  final class ScriptedServer: Sendable {
    private struct State {
      var messages: [ChatWire.Message] = []
      var requests: [(after: String?, before: String?)] = []
      var failures = 0
      /// Every page answers the newest messages and says there are more, whatever was asked: a broken server.
      var stuck = false
      /// A page of more messages than this is too large for the transport to take.
      var mostPerPage = Int.max
      /// The limits asked for, in order.
      var limits: [Int] = []
      /// Messages too large for the transport to take: a page that holds one whole is too large, whatever its limit.
      var huge: Set<String> = []
      /// Whether the server knows `brief`; one that does not answers whole messages.
      var answersBrief = true
      /// Whether its messages carry their numbers (`seq`), as SandboxAPI §7's do; older servers' do not.
      var numbered = false
      /// How many requests asked for brief messages.
      var briefs = 0
    }

    private let state = Locked(State())
    let gate = Gate()
    /// How many requests came, for a test to wait on without spinning.
    let requestCount = Broadcast(0)

    func add(_ numbers: ClosedRange<Int>) {
      state.withLock { state in
        for number in numbers { state.messages.append(Self.message(number, numbered: state.numbered)) }
      }
    }

    /// Numbers the messages added from now on.
    func number() { state.withLock { $0.numbered = true } }

    var briefs: Int { state.withLock { $0.briefs } }

    func failNext(_ count: Int) { state.withLock { $0.failures = count } }

    func getStuck() { state.withLock { $0.stuck = true } }

    func takeAtMost(_ count: Int) { state.withLock { $0.mostPerPage = count } }

    func makeHuge(_ numbers: Int...) { state.withLock { $0.huge.formUnion(numbers.map { "m\($0)" }) } }

    func ignoreBrief() { state.withLock { $0.answersBrief = false } }

    var limits: [Int] { state.withLock { $0.limits } }

    var requests: [(after: String?, before: String?)] { state.withLock { $0.requests } }

    static func message(_ number: Int, numbered: Bool = false) -> ChatWire.Message {
      ChatWire.Message(
        id: "m\(number)", conversationId: "c1", clientMessageId: nil, senderId: "ann", text: "message \(number)",
        images: [], createdAt: Double(1_700_000_000_000 + number), seq: numbered ? number : nil)
    }

    func page(after: String?, before: String?, limit: Int, brief: Bool = false) async throws -> ChatWire.Page {
      let (failing, count) = state.withLock { state in
        state.requests.append((after, before))
        state.limits.append(limit)
        if brief { state.briefs += 1 }
        defer { state.failures = max(0, state.failures - 1) }
        return (state.failures > 0, state.requests.count)
      }
      requestCount.publish(count)
      await gate.pass()
      if failing { throw ChatError(.requestFailed, "The scripted server is down.") }
      let (page, tooLarge) = state.withLock { state in
        let page = Self.cut(state.messages, after: after, before: before, limit: limit, stuck: state.stuck)
        if brief && state.answersBrief {
          return (ChatWire.Page(messages: page.messages.map(\.unavailable), hasMore: page.hasMore), false)
        }
        return (page, limit > state.mostPerPage || page.messages.contains { state.huge.contains($0.id) })
      }
      if tooLarge {
        var error = NetworkError(.transport, "The response is over the transport's limit.")
        error.urlError = URLError(.dataLengthExceedsMaximum)
        throw ChatError.request(RequestFailure(error), doing: "read the messages")
      }
      return page
    }

    /// The page SandboxAPI §7 cuts from `all`; a `stuck` server answers the newest, and more, whatever was asked.
    private static func cut(
      _ all: [ChatWire.Message], after: String?, before: String?, limit: Int, stuck: Bool
    ) -> ChatWire.Page {
      if stuck { return ChatWire.Page(messages: Array(all.suffix(limit)), hasMore: true) }
      if let after, let index = all.firstIndex(where: { $0.id == after }) {
        let rest = all[(index + 1)...]
        return ChatWire.Page(messages: Array(rest.prefix(limit)), hasMore: rest.count > limit)
      }
      if let before, let index = all.firstIndex(where: { $0.id == before }) {
        let head = all[..<index]
        return ChatWire.Page(messages: Array(head.suffix(limit)), hasMore: head.count > limit)
      }
      return ChatWire.Page(messages: Array(all.suffix(limit)), hasMore: all.count > limit)
    }
  }

  let server = ScriptedServer()
  let store: ChatStore
  let retries = Gate(open: false)

  init() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-sync-\(UUID().uuidString)")
    store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
  }

  func sync(pageSize: Int = 50, silenceCheck: ConversationSync.SilenceCheck? = nil) -> ConversationSync {
    let (server, retries) = (server, retries)
    return ConversationSync(
      id: "c1", store: store, fetch: { try await server.page(after: $0, before: $1, limit: $2, brief: $3) },
      configuration: ChatConfiguration(pageSize: pageSize, catchUpPageSize: 10).clamped,
      logger: Logger(label: "keel.tests.sync") { _ in SwiftLogNoOpLogHandler() },
      sleep: { _ in await retries.pass() }, silenceCheck: silenceCheck)
  }

  /// A numbered message, as a push brings it.
  func pushed(_ number: Int) -> Message { ScriptedServer.message(number, numbered: true).record }

  func texts(_ sync: ConversationSync) -> [String] { sync.snapshots.current.messages.map(\.text) }

  func status(_ sync: ConversationSync) -> ConversationSnapshot.Status { sync.snapshots.current.status }

  /// Waits, without spinning, for a snapshot of `sync` that `condition` holds for (a later one replaces an earlier
  /// one a slow reader has not read, so the condition must last); the suite's time limit guards a hang.
  func until(_ sync: ConversationSync, _ condition: (ConversationSnapshot) -> Bool) async {
    for await snapshot in sync.snapshots.updates() where condition(snapshot) { return }
  }

  /// Waits until the server has had `count` requests.
  func requests(_ count: Int) async {
    for await seen in server.requestCount.updates() where seen >= count { return }
  }

  func isLive(_ snapshot: ConversationSnapshot) -> Bool { snapshot.status == .live }

  @Test("A page too large for the transport is asked again in halves, down to what it can take; the catch-up goes on")
  func pageTooLarge() async throws {
    server.add(1...1)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync, isLive)
    // 25 more while away, and pages of more than 3 are too large to take.
    server.add(2...26)
    server.takeAtMost(3)
    await sync.requestCatchUp()
    await until(sync) { $0.status == .live && $0.messages.count == 26 }
    #expect(texts(sync) == (1...26).map { "message \($0)" })
    #expect(server.limits.dropFirst().prefix(3) == [10, 5, 2], "halved until a page fits: \(server.limits)")
  }

  @Test(
    "A message too large to take alone is shown unavailable, with its id, sender and time; the catch-up goes past it")
  func messageTooLarge() async throws {
    server.add(1...1)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync, isLive)
    // Six more while away, the third of them too large for the transport whatever the page.
    server.add(2...7)
    server.makeHuge(4)
    await sync.requestCatchUp()
    await until(sync) { $0.status == .live && $0.messages.count == 7 }
    let messages = sync.snapshots.current.messages
    #expect(messages.map(\.id) == (1...7).map { "m\($0)" })
    #expect(messages.map(\.isUnavailable) == [false, false, false, true, false, false, false])
    #expect(messages[3].text.isEmpty && messages[3].senderID == "ann" && messages[3].state == .sent)
    #expect(messages.filter { !$0.isUnavailable }.map(\.text) == [1, 2, 3, 5, 6, 7].map { "message \($0)" })
    #expect(try await store.messageCount(in: "c1") == 7)

    // A whole copy, when one comes (a push), takes the unavailable one's place; an unavailable copy never replaces
    // a whole one.
    await sync.receive(ScriptedServer.message(4).record)
    await until(sync) { $0.messages.count == 7 && !$0.messages[3].isUnavailable }
    try await store.upsert([ScriptedServer.message(4).unavailable.record])
    #expect(try await store.messages(in: "c1", limit: 10)[3].text == "message 4")
  }

  @Test("A server that cannot answer brief leaves the conversation behind, its catch-up retried later")
  func messageTooLargeWithoutBrief() async throws {
    server.add(1...3)
    server.makeHuge(3)
    server.ignoreBrief()
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync) { if case .behind = $0.status { true } else { false } }
    #expect(texts(sync).isEmpty, "the newest page holds the message it cannot take")
  }

  @Test("A push that comes during a catch-up waits for it, then shows in its place")
  func pushesAreHeld() async throws {
    server.add(1...3)
    server.gate.close()
    let sync = sync()
    await sync.requestCatchUp()
    await requests(1)
    await sync.receive(ScriptedServer.message(4).record)
    #expect(texts(sync).isEmpty && status(sync) == .catchingUp, "held, not shown")
    #expect(try await store.messageCount(in: "c1") == 0, "held, not stored")
    server.gate.open()
    await until(sync, isLive)
    #expect(texts(sync) == (1...4).map { "message \($0)" })
  }

  @Test("Catch-up starts where the last one ended, not at the newest push, so a push lost before it is found")
  func catchUpFromSyncPoint() async throws {
    server.add(1...3)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync, isLive)
    #expect(try await store.syncPoint(in: "c1") == "m3")
    // Message 4's push is lost; 5's arrives and is shown.
    server.add(4...5)
    await sync.receive(ScriptedServer.message(5).record)
    #expect(texts(sync) == ["message 1", "message 2", "message 3", "message 5"])
    #expect(try await store.syncPoint(in: "c1") == "m3", "a push does not move the sync point")
    await sync.requestCatchUp()
    await requests(2)
    await until(sync) { $0.status == .live && $0.messages.count == 5 }
    #expect(texts(sync) == (1...5).map { "message \($0)" })
    #expect(server.requests.last?.after == "m3")
    #expect(try await store.syncPoint(in: "c1") == "m5")
  }

  @Test("A push numbered past the next one catches up at once; one in order, a duplicate or an older one asks nothing")
  func gapCatchesUp() async throws {
    server.number()
    server.add(1...3)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync, isLive)
    // 4 and 5 are on the server; 4's push is lost, 5's arrives: shown at once, and the gap caught up.
    server.add(4...5)
    await sync.receive(pushed(5))
    await requests(2)
    await until(sync) { $0.status == .live && $0.messages.count == 5 }
    #expect(texts(sync) == (1...5).map { "message \($0)" })
    #expect(server.requests.last?.after == "m3", "from where the last catch-up ended")
    #expect(try await store.messages(in: "c1", limit: 10).map(\.seq) == [1, 2, 3, 4, 5])

    server.add(6...6)
    await sync.receive(pushed(6))
    await sync.receive(pushed(6))
    await sync.receive(pushed(2))
    await until(sync) { $0.messages.count == 6 }
    #expect(server.requests.count == 2, "nothing was missed, so nothing was asked")
  }

  @Test("A live conversation that hears nothing asks for its newest message, brief, and catches up on what it missed")
  func silenceIsChecked() async throws {
    server.number()
    server.add(1...2)
    let clock = TestClock()
    let connected = Locked(true)
    let sync = sync(
      silenceCheck: ConversationSync.SilenceCheck(
        sleep: { try await clock.sleep(for: $0) }, following: { connected.withLock { $0 } }))
    await sync.requestCatchUp()
    await until(sync, isLive)

    // Nothing new: one small request, and no catch-up.
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(15))
    await requests(2)
    #expect(server.briefs == 1 && server.limits.last == 1, "one brief message asked for")
    // Two messages whose pushes were lost, with the connection kept: the next check finds them.
    server.add(3...4)
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(15))
    await until(sync) { $0.status == .live && $0.messages.count == 4 }
    #expect(server.requests.last?.after == "m2")
    let asked = server.requests.count

    // A push heard since the last check, then a socket that is down: neither check asks anything.
    server.add(5...5)
    await sync.receive(pushed(5))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(15))
    connected.withLock { $0 = false }
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(15))
    #expect(await clock.sleeperArrived())
    #expect(server.requests.count == asked, "no request while hearing, none while the socket is down")
    await sync.stop()
  }

  @Test("A message pushed twice, and brought again by a catch-up, is stored once")
  func duplicatesStoredOnce() async throws {
    server.add(1...2)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync, isLive)
    server.add(3...3)
    for _ in 0..<3 { await sync.receive(ScriptedServer.message(3).record) }
    await sync.requestCatchUp()
    await requests(2)
    await until(sync, isLive)
    #expect(try await store.messageCount(in: "c1") == 3)
    #expect(texts(sync) == (1...3).map { "message \($0)" })
  }

  @Test("Catch-up pages through a gap; with no sync point it takes only the newest page")
  func paging() async throws {
    server.add(1...25)
    let sync = sync(pageSize: 5)
    await sync.requestCatchUp()
    await until(sync, isLive)
    #expect(try await store.messageCount(in: "c1") == 10, "the newest page of 10")
    server.add(26...48)
    await sync.requestCatchUp()
    await requests(4)
    await until(sync, isLive)
    #expect(server.requests.map(\.after) == [nil, "m25", "m35", "m45"])
    #expect(texts(sync) == (16...48).map { "message \($0)" }, "the window grows with what the catch-up brought")
    #expect(try await sync.loadOlder(), "older pages come from the server once the store has none")
    #expect(texts(sync).first == "message 11")
  }

  /// Three minutes, not one: with every suite at once on two cores this test has taken 63 s to pass, and 65 s failed
  /// it on the limit in CI; a catch-up that waits for the held writer never ends, so any limit tells.
  @Test(
    "A catch-up asks for its next page while it stores this one, and for none past the last", .timeLimit(.minutes(3)))
  func pagesOverlapTheStore() async throws {
    server.add(1...5)
    let sync = sync(pageSize: 5)
    await sync.requestCatchUp()
    await until(sync, isLive)
    server.add(6...30)
    // With the store's writer held, the first page after the sync point cannot be stored until it is let go: the
    // request for the page after it comes all the same (the suite's time limit fails a catch-up that waits instead).
    let writer = HeldWriter(store.pool)
    await sync.requestCatchUp()
    await requests(3)
    #expect(try await store.messageCount(in: "c1") == 5, "the first page is not stored yet")
    writer.release()
    await until(sync, isLive)
    #expect(server.requests.map(\.after) == [nil, "m5", "m15", "m25"])
    #expect(try await store.messageCount(in: "c1") == 30)
    #expect(try await store.syncPoint(in: "c1") == "m30")
  }

  @Test("A server whose pages always say there is more but bring nothing new stops the paging with an error")
  func stuckPaging() async throws {
    server.add(1...25)
    let sync = sync(pageSize: 5)
    await sync.requestCatchUp()
    await until(sync, isLive)
    server.getStuck()
    // Older pages: the store's 10 are shown, and the server repeats its newest page, saying there is more.
    let stalled = await #expect(throws: ChatError.self) { _ = try await sync.loadOlder() }
    #expect(stalled?.description.contains("nothing new") == true, "\(String(describing: stalled))")
    // A catch-up after the newest message: the server answers the same page again, with more to come.
    let before = server.requests.count
    await sync.requestCatchUp()
    await until(sync) { if case .behind(let reason) = $0.status { reason.contains("nothing new") } else { false } }
    #expect(server.requests.count == before + 1, "one request, not a loop: \(server.requests.count - before)")
  }

  @Test("A conversation empty at its first catch-up: the next one takes everything since, however it pages")
  func emptyAtFirst() async throws {
    let sync = sync(pageSize: 5)
    await sync.requestCatchUp()
    await until(sync, isLive)
    #expect(try await store.syncPoint(in: "c1") == "", "synced from the start")
    server.add(1...25)
    for number in [3, 24, 25] { await sync.receive(ScriptedServer.message(number).record) }
    await sync.requestCatchUp()
    await requests(4)
    await until(sync, isLive)
    #expect(try await store.messageCount(in: "c1") == 25, "all of it, not the newest page")
    #expect(server.requests.map(\.before) == [nil, nil, "m16", "m6"])
    #expect(try await store.syncPoint(in: "c1") == "m25")
  }

  @Test("A failed catch-up leaves the stored messages, says so, and tries again after its wait")
  func failedCatchUpRetries() async throws {
    server.add(1...3)
    server.failNext(1)
    let sync = sync()
    await sync.requestCatchUp()
    await until(sync) { if case .behind = $0.status { true } else { false } }
    #expect(texts(sync).isEmpty)
    retries.open()
    await until(sync, isLive)
    #expect(texts(sync) == (1...3).map { "message \($0)" })
  }
}
