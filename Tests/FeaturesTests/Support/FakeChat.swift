import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import Persistence
import TestSupport

/// Streams a test feeds by key: each is made on first use by either side, so that what the test yields before the
/// feature subscribes waits in its buffer, and the feature's actions come in the order the test yields.
final class Feed<Element: Sendable>: Sendable {
  private typealias Pair = (
    stream: AsyncThrowingStream<Element, any Error>, continuation: AsyncThrowingStream<Element, any Error>.Continuation
  )
  private let pairs = Locked<[String: Pair]>([:])
  /// The keys whose streams were read and then given up (cancelled, or the reader gone).
  let ended = Recorder<String>()

  private func pair(_ key: String) -> Pair {
    pairs.withLock { pairs in
      if let pair = pairs[key] { return pair }
      let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
      continuation.onTermination = { [ended] _ in ended.record(key) }
      pairs[key] = (stream, continuation)
      return (stream, continuation)
    }
  }

  /// The stream of `key`, for the feature.
  func stream(_ key: String) -> AsyncThrowingStream<Element, any Error> { pair(key).stream }

  /// Sends `element` on `key`'s stream.
  func yield(_ element: Element, to key: String) { pair(key).continuation.yield(element) }

  /// Ends `key`'s stream, with `error` if given.
  func finish(_ key: String, throwing error: (any Error)? = nil) { pair(key).continuation.finish(throwing: error) }
}

/// Snapshots a test feeds to an open conversation, by conversation id, as ``Feed`` feeds lists.
final class SnapshotFeed: Sendable {
  private typealias Pair = (
    stream: AsyncStream<ConversationSnapshot>, continuation: AsyncStream<ConversationSnapshot>.Continuation
  )
  private let pairs = Locked<[String: Pair]>([:])
  /// The conversations whose snapshots were read and then given up: closed.
  let ended = Recorder<String>()

  private func pair(_ key: String) -> Pair {
    pairs.withLock { pairs in
      if let pair = pairs[key] { return pair }
      let (stream, continuation) = AsyncStream.makeStream(of: ConversationSnapshot.self)
      continuation.onTermination = { [ended] _ in ended.record(key) }
      pairs[key] = (stream, continuation)
      return (stream, continuation)
    }
  }

  /// The snapshots of `key`, for the feature.
  func stream(_ key: String) -> AsyncStream<ConversationSnapshot> { pair(key).stream }

  /// Sends `snapshot` to `key`.
  func yield(_ snapshot: ConversationSnapshot, to key: String) { pair(key).continuation.yield(snapshot) }

  /// Ends `key`'s snapshots.
  func finish(_ key: String) { pair(key).continuation.finish() }
}

extension TestStore where Action: Equatable {
  /// ``receive(_:timeout:assert:fileID:filePath:line:column:)`` with a minute to wait rather than a second: what the
  /// fakes feed goes through a stream, an effect's task and hops to the main actor, and when every suite starts at
  /// once on two cores each hop has taken seconds (a 10 s bound ran out, with the action on its way). A hang is still
  /// bounded, by this minute and by the suite's time limit.
  func receiveFed(
    _ expected: Action, assert: ((inout State) throws -> Void)? = nil, fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    await receive(
      expected, timeout: .seconds(60), assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// A chat the tests drive: lists and conversations are fed by the test; calls are recorded and answer from what the
/// test set.
final class FakeChat: Sendable {
  static let keel = Workspace(id: "w1", name: "Keel", ownerID: "user-ada")
  static let lab = Workspace(id: "w9", name: "Lab", ownerID: "user-demo")
  static let general = Conversation(
    id: "c2", workspaceID: "w1", kind: .channel, name: "general", joined: true, ownerID: "user-ada")
  static let random = Conversation(
    id: "c3", workspaceID: "w1", kind: .channel, name: "random", joined: false, ownerID: "user-ada")
  static let ada = Member(id: "user-ada", nickname: "ada")
  static let bob = Member(id: "user-bob", nickname: "bob")
  static let me = Member(id: "user-demo", nickname: "demo")
  static let adaRoom = DirectMessageRoom(
    conversation: Conversation(
      id: "d4", workspaceID: "w1", kind: .directMessage, name: "ada", joined: true, unreadCount: 1),
    members: [ada, me], lastMessage: message("m5", in: "d4", from: "user-ada", "Hi!", at: 5))

  let workspaces = Feed<[Workspace]>()
  let channels = Feed<[Conversation]>()
  let rooms = Feed<[DirectMessageRoom]>()
  let snapshots = SnapshotFeed()
  let lastWorkspace = Locked<String?>(nil)
  /// Each workspace the feature kept as the last one, in order.
  let lastWorkspaceSets = Recorder<String?>()
  let members = Locked<[Member]>([ada, bob, me])
  /// What calls throw, by the call's name (`send`, `join`, `loadOlder`, `open`, `resend`).
  let failures = Locked<[String: ChatError]>([:])
  /// What `loadOlder` answers, first queued first.
  let olderPages = Locked<[Bool]>([])

  let joins = Recorder<String>()
  let opened = Recorder<String>()
  let sends = Recorder<(text: String, images: [URL], conversation: String)>()
  let resends = Recorder<Message>()
  let reads = Recorder<(conversation: String, message: String)>()
  let lifecycle = Recorder<String>()
  /// Holds `appDidEnterBackground` until opened (open unless a test closes it).
  let backgroundGate = Gate()

  /// A sent message.
  static func message(
    _ id: String, in conversation: String, from sender: String, _ text: String, at second: Double,
    state: Message.State = .sent
  ) -> Message {
    Message(
      id: state == .sent ? id : nil, clientMessageID: state == .sent ? nil : id, conversationID: conversation,
      senderID: sender, text: text, images: [], createdAt: Date(timeIntervalSince1970: second), state: state)
  }

  private func failure(_ call: String) throws {
    if let error = failures.withLock({ $0[call] }) { throw error }
  }

  /// The names of the channels created.
  let creates = Recorder<String>()
  /// Passed before a channel's creation answers.
  let createGate = Gate()

  var client: ChatClient {
    ChatClient(
      workspaces: { [workspaces] in workspaces.stream("workspaces") },
      channels: { [channels] in channels.stream($0) },
      directMessages: { [rooms] in rooms.stream($0) },
      members: { [members] _ in members.withLock { $0 } },
      join: { [self] id in
        joins.record(id)
        try failure("join")
        var joined = id == Self.random.id ? Self.random : Self.general
        joined.joined = true
        return joined
      },
      openDirectMessage: { [self] userID, workspaceID in
        opened.record(userID)
        try failure("open")
        let member = members.withLock { $0.first { $0.id == userID } } ?? Self.bob
        return DirectMessageRoom(
          conversation: Conversation(
            id: "d-\(userID)", workspaceID: workspaceID, kind: .directMessage, name: member.nickname, joined: true),
          members: [member, Self.me], lastMessage: nil)
      },
      lastWorkspaceID: { [lastWorkspace] in lastWorkspace.withLock { $0 } },
      setLastWorkspaceID: { [lastWorkspace, lastWorkspaceSets] id in
        lastWorkspace.withLock { $0 = id }
        lastWorkspaceSets.record(id)
      },
      conversation: { [snapshots] id in snapshots.stream(id) },
      loadOlder: { [self] _ in
        try failure("loadOlder")
        return olderPages.withLock { $0.isEmpty ? false : $0.removeFirst() }
      },
      send: { [self] text, images, conversation in
        sends.record((text, images, conversation))
        try failure("send")
        return Self.message(
          "pending-\(sends.count)", in: conversation, from: "user-demo", text, at: 100, state: .pending)
      },
      resend: { [self] message in
        resends.record(message)
        try failure("resend")
      },
      markRead: { [reads] conversation, message in reads.record((conversation, message)) },
      appDidEnterBackground: { [lifecycle, backgroundGate] in
        await backgroundGate.pass()
        lifecycle.record("background")
      },
      appWillEnterForeground: { [lifecycle] in lifecycle.record("foreground") },
      createChannel: { [self] name, workspaceID in
        creates.record(name)
        await createGate.pass()
        try failure("create")
        return Conversation(
          id: "c-\(name)", workspaceID: workspaceID, kind: .channel, name: name, joined: true, ownerID: "user-demo")
      })
  }
}
