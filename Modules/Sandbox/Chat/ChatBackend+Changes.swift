import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON
import Realtime

/// What changes a message after it was sent (SandboxAPI §7): its sender edits or deletes it, any member reacts to it,
/// a reply counts on it. Each change gives the message the conversation's next change number and is pushed to every
/// member as `messageChanged`; `GET …/changes?since=N` lists what changed after N, for a client that missed pushes.
extension ChatBackend {
  /// Why a message changed, as `messageChanged` says it.
  enum Change: String {
    case edited, deleted, reaction, reply
  }

  /// The most distinct emoji on one message.
  static let maxReactions = 50
  /// The most bytes of UTF-8 of one emoji (a family or a flag is several scalars).
  static let maxEmojiBytes = 64
  /// How many change ids a message remembers, to apply a change sent again once.
  static let rememberedChanges = 32

  /// `PATCH …/messages/:message {"text", "changeId"?}`: the sender's new text; the message gets an `editedAt`.
  func editMessage(_ request: SandboxRequest) throws -> SandboxResponse {
    let body = try Self.object(request)
    guard case .string(let text)? = body["text"] else { throw BackendError.malformed(#"expected {"text"}"#) }
    guard text.count <= Self.maxTextLength, text.utf8.count <= Self.maxTextBytes else {
      throw BackendError.malformed(
        "a text has at most \(Self.maxTextLength) characters and \(Self.maxTextBytes) bytes of UTF-8")
    }
    let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    // Found before the change takes the state's lock, which finding them takes too.
    let mentions = mentioned(in: text, of: request.parameter("conversation") ?? "")
    return try change(.edited, request, changeID: try Self.changeID(body), senderOnly: "edit") { message in
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !message.blobIDs.isEmpty else {
        throw BackendError.malformed("a message has text, images or files")
      }
      message.text = text
      message.editedAt = max(now, message.createdAt)
      message.mentions = mentions
      return []
    }
  }

  /// `DELETE …/messages/:message`: the sender's message becomes a tombstone: its text, images, files and reactions
  /// gone, its place and number kept. Deleting it again answers the tombstone.
  func deleteMessage(_ request: SandboxRequest) throws -> SandboxResponse {
    try change(.deleted, request, changeID: nil, senderOnly: "delete", allowDeleted: true) { message in
      guard !message.deleted else { return [] }
      let gone = message.blobIDs
      message.deleted = true
      message.text = ""
      message.imageIDs = []
      message.files = []
      message.reactions = []
      message.mentions = []
      return gone
    }
  }

  /// `POST …/messages/:message/reactions {"emoji", "changeId"?}`: the caller's reaction, once however often it comes.
  func addReaction(_ request: SandboxRequest) throws -> SandboxResponse {
    let body = try Self.object(request)
    guard case .string(let given)? = body["emoji"] else { throw BackendError.malformed(#"expected {"emoji"}"#) }
    let emoji = try Self.emoji(given)
    return try change(.reaction, request, changeID: try Self.changeID(body), senderOnly: nil) { message in
      let me = try auth.account(of: request).id
      if let index = message.reactions.firstIndex(where: { $0.emoji == emoji }) {
        if !message.reactions[index].userIDs.contains(me) { message.reactions[index].userIDs.append(me) }
      } else {
        guard message.reactions.count < Self.maxReactions else {
          throw BackendError.malformed("a message has at most \(Self.maxReactions) different reactions")
        }
        message.reactions.append(ChatState.Reaction(emoji: emoji, userIDs: [me]))
      }
      return []
    }
  }

  /// `DELETE …/messages/:message/reactions?emoji=E`: takes the caller's reaction away; none is no error.
  func removeReaction(_ request: SandboxRequest) throws -> SandboxResponse {
    let emoji = try Self.emoji(request.query["emoji"])
    return try change(.reaction, request, changeID: request.query["changeId"], senderOnly: nil) { message in
      let me = try auth.account(of: request).id
      if let index = message.reactions.firstIndex(where: { $0.emoji == emoji }) {
        message.reactions[index].userIDs.removeAll { $0 == me }
        if message.reactions[index].userIDs.isEmpty { message.reactions.remove(at: index) }
      }
      return []
    }
  }

  /// `GET …/changes?since=N&limit=L`: the messages changed after they were created whose change number is over N, in
  /// change order, at most `limit` (50 by default, 100 at most, and ``maxPageBytes`` of JSON; with `brief=true`,
  /// each without its text and images, as a brief page of messages); `version` is the conversation's change number
  /// now, `hasMore` whether more changed after the last one listed.
  func listChanges(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    let limit = try Self.limit(request.query["limit"])
    let brief = try Self.flag(request.query["brief"], "brief")
    guard let since = Int(request.query["since"] ?? "0"), since >= 0 else {
      throw BackendError.malformed("since is a change number, 0 or more")
    }
    let (changed, version) = try state.withLock { state in
      _ = try Self.conversation(conversationID, of: me, in: state)
      let changed = (state.messages[conversationID] ?? []).filter { $0.version > since }.sorted {
        $0.version < $1.version
      }
      return (changed, state.versions[conversationID] ?? 0)
    }
    let page = brief ? Array(changed.prefix(limit)) : Self.weighed(Array(changed.prefix(limit)), keepingNewest: false)
    return .json([
      "messages": .array(page.map { brief ? briefJSON($0) : messageJSON($0) }), "version": .number(Double(version)),
      "hasMore": .bool(changed.count > page.count),
    ])
  }

  // MARK: - One change

  /// Applies `apply` to the message of the request's path, for a member of its conversation (and, with
  /// `senderOnly`, its sender only: E403 otherwise), pushes it to every member and answers it. A deleted message takes
  /// no change but its deletion again (E404). `apply` returns the image ids it let go of, removed after the change.
  private func change(
    _ kind: Change, _ request: SandboxRequest, changeID: String?, senderOnly: String?, allowDeleted: Bool = false,
    _ apply: (inout ChatState.Message) throws -> [String]
  ) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    let messageID = request.parameter("message") ?? ""
    var released: [String] = []
    let (message, members, changed, parent) = try state.withLock {
      state -> (ChatState.Message, [String], Bool, ChatState.Message?) in
      let members = try Self.conversation(conversationID, of: me, in: state).memberIDs
      guard let found = state.messages[conversationID]?.first(where: { $0.id == messageID }) else {
        throw BackendError.notFound("The message")
      }
      if let senderOnly, found.senderID != me {
        throw BackendError(status: .forbidden, code: "E403", message: "Only its sender can \(senderOnly) a message.")
      }
      if found.deleted, kind == .deleted { return (found, members, false, nil) }
      guard !found.deleted || allowDeleted else { throw BackendError.notFound("The message (deleted)") }
      if let changeID, found.changeIDs.contains(changeID) { return (found, members, false, nil) }
      var changed = found
      released = try apply(&changed)
      let message = state.changeMessage(messageID, in: conversationID) { stored in
        stored = changed
        if let changeID {
          stored.changeIDs.append(changeID)
          if stored.changeIDs.count > Self.rememberedChanges { stored.changeIDs.removeFirst() }
        }
      }
      // A reply deleted no longer counts on its parent, which changes too.
      var parent: ChatState.Message?
      if kind == .deleted, let parentID = found.replyTo {
        let replies = (state.messages[conversationID] ?? []).filter { $0.replyTo == parentID && !$0.deleted }
        parent = state.changeMessage(parentID, in: conversationID) { parent in
          parent.replyCount = replies.count
          parent.lastReplyID = replies.last?.id
        }
      }
      return (message ?? changed, members, true, parent)
    }
    if !released.isEmpty { blobs.remove(released) }
    if changed { pushChange(kind, message, to: members) }
    if let parent { pushChange(.reply, parent, to: members) }
    return .json(messageJSON(message))
  }

  /// Pushes `messageChanged {"change", "message"}` to `members`.
  func pushChange(_ kind: Change, _ message: ChatState.Message, to members: [String]) {
    push("messageChanged", members, ["change": .string(kind.rawValue), "message": messageJSON(message)])
  }

  /// A change id: at most 128 bytes; none is no id.
  private static func changeID(_ body: [String: JSONValue]) throws -> String? {
    guard case .string(let id)? = body["changeId"], !id.isEmpty else { return nil }
    guard id.utf8.count <= 128 else { throw BackendError.malformed("a change id is 128 bytes at most") }
    return id
  }

  /// One emoji: a single character, at most ``maxEmojiBytes`` bytes, whose first scalar is an emoji (not an ASCII
  /// digit or sign, which Unicode also counts as emoji).
  static func emoji(_ given: String?) throws -> String {
    guard let given, given.count == 1, given.utf8.count <= maxEmojiBytes, let first = given.unicodeScalars.first,
      !first.isASCII, first.properties.isEmoji
    else { throw BackendError.malformed("a reaction is one emoji") }
    return given
  }
}

// MARK: - Mentions

extension ChatBackend {
  /// The members of `conversationID` that `text` mentions: `@` and their nickname, whatever the case, neither preceded
  /// nor followed by a letter or a digit (`@ada` is not `@adam`, nor in `x@ada`); a longer nickname is tried first, so
  /// `@ada lovelace` is that one.
  func mentioned(in text: String, of conversationID: String) -> [String] {
    guard text.contains("@") else { return [] }
    let members = state.withLock { $0.conversations[conversationID]?.memberIDs ?? [] }
    let named = members.compactMap { id in auth.directory.account(id: id).map { (id, $0.nickname) } }
      .filter { !$0.1.isEmpty }.sorted { $0.1.count > $1.1.count }
    var mentions: [String] = []
    var rest = text.lowercased()[...]
    for (id, nickname) in named {
      let needle = "@" + nickname.lowercased()
      var searched = rest
      while let range = searched.range(of: needle) {
        let after = searched[range.upperBound...].first
        let before = range.lowerBound > rest.startIndex ? rest[rest.index(before: range.lowerBound)] : nil
        // A word of its own: not `ada@keel.dev` (an address), not `@adam` for `@ada`.
        if after.map({ !$0.isLetter && !$0.isNumber }) ?? true, before.map({ !$0.isLetter && !$0.isNumber }) ?? true {
          mentions.append(id)
          // Taken: a shorter nickname inside it is not mentioned by it.
          rest.replaceSubrange(range, with: String(repeating: " ", count: needle.count))
          break
        }
        searched = searched[range.upperBound...]
      }
    }
    return members.filter(mentions.contains)
  }
}

// MARK: - What a socket tells the backend

extension ChatBackend {
  /// A socket's event for the chat: `typing {"conversationId","typing"}` from a member goes, with who, to the
  /// conversation's other members' sockets; never stored. Anything else, or from someone who is not a member, is
  /// ignored.
  func heard(_ event: String, _ args: [SocketValue], from userID: String) {
    guard event == "typing", let conversationID = args.first?["conversationId"]?.string,
      case .bool(let typing)? = args.first?["typing"]
    else { return }
    guard let members = state.withLock({ $0.conversations[conversationID]?.memberIDs }), members.contains(userID)
    else { return }
    push(
      "typing", members.filter { $0 != userID },
      ["conversationId": .string(conversationID), "userId": .string(userID), "typing": .bool(typing)])
  }
}
