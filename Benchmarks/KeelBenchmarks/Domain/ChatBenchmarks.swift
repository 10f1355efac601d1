import Chat
import Domain
import Foundation
import GRDB
import Networking
import Persistence
import Realtime

/// The chat rows, each against a hand-written peer doing the same work on the same Sandbox:
///
/// - `catchUp.1000`: from opening a conversation whose store ends 1,000 messages behind until all 1,000 are stored
///   and shown, live: ten REST pages of 100, each stored in one transaction, the sync point moved, the window read
///   again. Target: 1 s on loopback. The peer fetches the same pages with a bare `HTTPClient`, decodes them, and
///   inserts them with plain GRDB statements: no sync point, no window, no snapshot.
/// - `sendToReceive.p50` / `.p99`: from Ann's `send` until the message is in Bob's open conversation, one message at
///   a time: the outbox's committed enqueue, Ann's pending copy, the multipart body (text alone, sent from memory),
///   the server's push, Bob's store and window, and beside them Ann's sent copy and the outbox's acknowledgement. The
///   peer POSTs the same body from memory and hears the push on a bare `SocketIOClient`.
///   Both rows read the same rounds (``LatencyRounds``).
/// - `unreadLatency.p50` / `.p99`: from a message POSTed by another client until the unread count of its channel
///   changes in Bob's live channel list (`channels(in:)`): the server's push, Bob's store (the message and its count
///   in one transaction), the store's change signal, the list read again. Goal: p99 50 ms on loopback. The peer POSTs
///   the same way and counts the push it hears on a bare `SocketIOClient`: no store, no list.
enum ChatBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let fixture = ChatBenchFixture()
    let rounds = LatencyRounds()
    let unreadRounds = LatencyRounds()
    let messages = quick ? 20 : 100
    return [
      Comparison(
        name: "domain.chat.catchUp.1000", unit: "ms", better: .lower, target: 1_000, rounds: (1, 5),
        keel: { try await keelCatchUp(fixture) },
        peer: { try await peerCatchUp(fixture) },
        finish: { await fixture.stop() }),
      latencyRow(0.5, "p50", messages: messages, fixture, rounds),
      latencyRow(0.99, "p99", messages: messages, fixture, rounds),
      unreadRow(0.5, "p50", target: nil, messages: messages, fixture, unreadRounds),
      unreadRow(0.99, "p99", target: 50, messages: messages, fixture, unreadRounds),
    ] + ChatMemoryBenchmarks.comparisons(fixture, quick: quick) + ChatFileBenchmarks.comparisons(fixture)
      + ChatStoreBenchmarks.comparisons(quick: quick)
      + ChatSearchBenchmarks.comparisons(quick: quick)
  }

  private static func latencyRow(
    _ fraction: Double, _ label: String, messages: Int, _ fixture: ChatBenchFixture, _ rounds: LatencyRounds
  ) -> Comparison {
    let name = "domain.chat.sendToReceive.\(label)"
    return Comparison(
      name: name, unit: "ms", better: .lower, target: nil, rounds: (1, 5),
      keel: {
        let samples = try await rounds.samples(of: .keel, for: name) {
          try await keelLatencies(messages: messages, fixture)
        }
        return LatencyRounds.percentile(fraction, of: samples)
      },
      peer: {
        let samples = try await rounds.samples(of: .peer, for: name) {
          try await peerLatencies(messages: messages, fixture)
        }
        return LatencyRounds.percentile(fraction, of: samples)
      },
      finish: { if label == "p99" { await fixture.stop() } })
  }

  private static func unreadRow(
    _ fraction: Double, _ label: String, target: Double?, messages: Int, _ fixture: ChatBenchFixture,
    _ rounds: LatencyRounds
  ) -> Comparison {
    let name = "domain.chat.unreadLatency.\(label)"
    return Comparison(
      name: name, unit: "ms", better: .lower, target: target, rounds: (1, 5),
      keel: {
        let samples = try await rounds.samples(of: .keel, for: name) {
          try await keelUnreadLatencies(messages: messages, fixture)
        }
        return LatencyRounds.percentile(fraction, of: samples)
      },
      peer: {
        let samples = try await rounds.samples(of: .peer, for: name) {
          try await peerLatencies(messages: messages, fixture, counting: true)
        }
        return LatencyRounds.percentile(fraction, of: samples)
      },
      finish: { if label == "p99" { await fixture.stop() } })
  }

  // MARK: - Catch-up

  private static func keelCatchUp(_ fixture: ChatBenchFixture) async throws -> Double {
    let running = try await fixture.start()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let channel = running.catchUpChannel
    let chat = try ChatService(
      baseURL: running.baseURL, sessions: running.bob, socketTransport: running.socket, directory: directory,
      clock: ContinuousClock())
    // Bob's store as a catch-up finds it: the anchor stored, the sync point on it.
    let store = try chat.store
    try await store.upsert([running.anchor])
    try await store.setSyncPoint(running.anchor.id ?? "", in: channel)
    let expected = ChatBenchFixture.missed + 1
    let clock = ContinuousClock()
    let start = clock.now
    let conversation = try await chat.open(channel)
    // Bounded, so that a catch-up that never ends fails the row instead of hanging the run.
    let caughtUp = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await snapshot in conversation.snapshots()
        where snapshot.status == .live && snapshot.messages.count == expected {
          return true
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(120))
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    let elapsed = start.duration(to: clock.now)
    guard caughtUp else {
      await conversation.close()
      await chat.shutDown()
      throw BenchmarkError(description: "keel's catch-up did not bring \(expected) messages within 120 s")
    }
    await conversation.close()
    await chat.shutDown()
    let stored = try await chat.store.messageCount(in: channel)
    guard stored == expected else { throw BenchmarkError(description: "keel stored \(stored) of \(expected)") }
    return nanoseconds(elapsed) / 1e6
  }

  /// A page as the peer decodes it.
  private struct PeerPage: Decodable, Sendable {
    struct Message: Decodable, Sendable {
      let id: String
      let senderId: String
      let text: String
      let images: [String]
      let createdAt: Double
    }
    let messages: [Message]
    let hasMore: Bool
  }

  private static func peerCatchUp(_ fixture: ChatBenchFixture) async throws -> Double {
    let running = try await fixture.start()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try DatabasePool(path: directory.appendingPathComponent("peer.sqlite").path)
    try await database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE message (id TEXT PRIMARY KEY, conversationID TEXT, senderID TEXT, text TEXT, images TEXT,
            createdAt INTEGER);
          CREATE INDEX message_order ON message(conversationID, createdAt, id);
          """)
    }
    let client = Networking.HTTPClient(transport: running.http)
    let channel = running.catchUpChannel
    let clock = ContinuousClock()
    let start = clock.now
    var cursor = running.anchor.id ?? ""
    var stored = 0
    while true {
      let page: PeerPage = try await client.send(
        .json(PeerPageEndpoint(baseURL: running.baseURL, channel: channel, after: cursor, token: running.bobToken)))
      try await database.write { db in
        for message in page.messages {
          try db.execute(
            sql: "INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
              message.id, channel, message.senderId, message.text, message.images.joined(separator: "\n"),
              Int64(message.createdAt),
            ])
        }
      }
      stored += page.messages.count
      guard let last = page.messages.last, page.hasMore else { break }
      cursor = last.id
    }
    let elapsed = start.duration(to: clock.now)
    guard stored == ChatBenchFixture.missed else { throw BenchmarkError(description: "the peer stored \(stored)") }
    return nanoseconds(elapsed) / 1e6
  }

  private struct PeerPageEndpoint: Endpoint {
    let baseURL: URL
    let channel: String
    let after: String
    let token: String
    var path: EndpointPath { ["v1", "conversations", channel, "messages"] }
    var method: HTTPMethod { .get }
    var query: [QueryItem] { [QueryItem("after", after), QueryItem("limit", "100")] }
    var headers: [String: String] { ["Authorization": "Bearer \(token)"] }
  }

  // MARK: - Send to receive

  private static func keelLatencies(messages: Int, _ fixture: ChatBenchFixture) async throws -> [Double] {
    let running = try await fixture.start()
    let directories = try (ChatBenchFixture.scratchDirectory(), ChatBenchFixture.scratchDirectory())
    defer {
      try? FileManager.default.removeItem(at: directories.0)
      try? FileManager.default.removeItem(at: directories.1)
    }
    let ann = try ChatService(
      baseURL: running.baseURL, sessions: running.ann, socketTransport: running.socket, directory: directories.0,
      clock: ContinuousClock())
    let bob = try ChatService(
      baseURL: running.baseURL, sessions: running.bob, socketTransport: running.socket, directory: directories.1,
      clock: ContinuousClock())
    let conversation = try await bob.open(running.latencyChannel)
    guard await conversation.caughtUp() == .live else { throw BenchmarkError(description: "Bob is not live") }
    while !bob.connectionState.isConnected { try await Task.sleep(for: .milliseconds(5)) }
    let snapshots = conversation.snapshots()
    var iterator = snapshots.makeAsyncIterator()
    let clock = ContinuousClock()
    var samples: [Double] = []
    for number in 0..<messages {
      let text = "keel \(UUID()) \(number)"
      let start = clock.now
      _ = try await ann.send(text, to: running.latencyChannel)
      while let snapshot = await iterator.next(), !snapshot.messages.contains(where: { $0.text == text }) {}
      samples.append(nanoseconds(start.duration(to: clock.now)) / 1e6)
    }
    await conversation.close()
    await ann.shutDown()
    await bob.shutDown()
    return samples
  }

  /// The unread count's latency in Bob's live channel list: a message from Ann (POSTed as the peer does) until the
  /// list shows the latency channel's count one higher.
  private static func keelUnreadLatencies(messages: Int, _ fixture: ChatBenchFixture) async throws -> [Double] {
    let running = try await fixture.start()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let bob = try ChatService(
      baseURL: running.baseURL, sessions: running.bob, socketTransport: running.socket, directory: directory,
      clock: ContinuousClock())
    // Bounded, so that a count that never comes fails the row instead of hanging the run.
    let watchdog = Task {
      try await Task.sleep(for: .seconds(120))
      await bob.shutDown()
    }
    defer { watchdog.cancel() }
    let channel = running.latencyChannel
    var lists = bob.channels(in: running.workspaceID).makeAsyncIterator()
    func unread(reaching count: Int) async throws {
      while let list = try await lists.next() {
        if let shown = list.first(where: { $0.id == channel })?.unreadCount, shown >= count { return }
      }
      throw BenchmarkError(description: "Bob's channel list ended before showing \(count) unread (120 s at most)")
    }
    _ = try await lists.next()  // the stored list (empty)
    var count = try await lists.next()?.first { $0.id == channel }?.unreadCount ?? 0
    while !bob.connectionState.isConnected { try await Task.sleep(for: .milliseconds(5)) }
    // One message first: the lists fetched again as the socket connected are stored before the rounds begin.
    _ = try await ChatBenchFixture.post(
      "warm-up", to: channel, token: running.annToken, baseURL: running.baseURL, over: running.http)
    count += 1
    try await unread(reaching: count)
    let clock = ContinuousClock()
    var samples: [Double] = []
    for number in 0..<messages {
      let start = clock.now
      _ = try await ChatBenchFixture.post(
        "unread \(number)", to: channel, token: running.annToken, baseURL: running.baseURL, over: running.http)
      count += 1
      try await unread(reaching: count)
      samples.append(nanoseconds(start.duration(to: clock.now)) / 1e6)
    }
    await bob.shutDown()
    return samples
  }

  /// The peer's rounds: POST a message, hear its push on a bare socket; `counting`, it also counts the pushes heard
  /// per conversation, as an unread count kept in memory.
  private static func peerLatencies(messages: Int, _ fixture: ChatBenchFixture, counting: Bool = false) async throws
    -> [Double]
  {
    let running = try await fixture.start()
    let token = running.bobToken
    let socket = try SocketIOClient(
      configuration: SocketIOConfiguration(url: running.baseURL, auth: { ["token": .string(token)] }),
      transport: running.socket)
    let events = socket.events(named: "message")
    var iterator = events.makeAsyncIterator()
    await socket.connect()
    for await state in socket.states() where state.isConnected { break }
    let clock = ContinuousClock()
    var samples: [Double] = []
    var unread: [String: Int] = [:]
    for number in 0..<messages {
      let text = "peer \(UUID()) \(number)"
      let start = clock.now
      _ = try await ChatBenchFixture.post(
        text, to: running.latencyChannel, token: running.annToken, baseURL: running.baseURL, over: running.http)
      while let event = await iterator.next() {
        if counting, let conversation = event.args.first?["conversationId"]?.string {
          unread[conversation, default: 0] += 1
        }
        if event.args.first?["text"]?.string == text { break }
      }
      samples.append(nanoseconds(start.duration(to: clock.now)) / 1e6)
    }
    await socket.disconnect()
    guard !counting || unread[running.latencyChannel] == messages else {
      throw BenchmarkError(description: "the peer counted \(unread) of \(messages)")
    }
    return samples
  }
}
