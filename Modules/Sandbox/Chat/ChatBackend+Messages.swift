import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// The chat backend's messages (SandboxAPI §7): sent as `multipart/form-data` (text, a client message id that makes
/// a re-send the same message, up to five images and five files), listed with cursors, marked read; images and files
/// served with an `ETag`.
extension ChatBackend {
  /// The most images a message carries.
  static let maxImages = 5
  /// The largest image.
  static let maxImageSize = 8 << 20
  /// The longest text, in characters.
  static let maxTextLength = 10_000
  /// The longest text in bytes of UTF-8: one character may carry any number of combining marks.
  static let maxTextBytes = 40_000
  /// The most messages a page lists.
  static let maxPage = 100
  /// The most bytes of JSON a page's messages take together: a page stops short of `limit` (with `hasMore`) rather
  /// than pass it, though it always holds one message. A message is at most about 90 KB of JSON (10,000 control
  /// characters, each escaped in six bytes, and one character carrying the rest of the 40,000 bytes in combining
  /// marks), so no page is much over 1 MiB, however its messages were written; 100 such messages would be 9 MB.
  static let maxPageBytes = 1 << 20

  var messageRoutes: [Route] {
    [
      Route(
        .post, "/v1/conversations/:conversation/messages",
        maxBodySize: Self.maxImages * Self.maxImageSize + Self.maxFilesSize + (1 << 20), handler: sendMessage),
      Route(.get, "/v1/conversations/:conversation/messages", handler: listMessages),
      Route(.post, "/v1/conversations/:conversation/read", handler: markRead),
      Route(.get, "/v1/conversations/:conversation/reads", handler: listReads),
      Route(.patch, "/v1/conversations/:conversation/messages/:message", handler: editMessage),
      Route(.delete, "/v1/conversations/:conversation/messages/:message", handler: deleteMessage),
      Route(.post, "/v1/conversations/:conversation/messages/:message/reactions", handler: addReaction),
      Route(.delete, "/v1/conversations/:conversation/messages/:message/reactions", handler: removeReaction),
      Route(.get, "/v1/conversations/:conversation/changes", handler: listChanges),
      Route(.get, "/v1/chat-images/:image", handler: image),
      Route(.get, "/v1/chat-files/:file", handler: file),
    ]
  }

  /// `POST /v1/conversations/:conversation/messages`, multipart: `text`, `clientMessageId`, `replyTo`, `images` and
  /// `files` parts. 201 with the new message; 200 with the stored one when the sender already sent this client message
  /// id here.
  private func sendMessage(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    _ = try state.withLock { try Self.conversation(conversationID, of: me, in: $0) }
    let form = try MultipartBody(request.body, contentType: request.header("Content-Type"))
    let text = form.text("text") ?? ""
    let clientMessageID = form.text("clientMessageId").flatMap { $0.isEmpty ? nil : $0 }
    let replyTo = form.text("replyTo").flatMap { $0.isEmpty ? nil : $0 }
    let files = form.files("images")
    let attached = try Self.attachments(form.files("files"))
    guard text.count <= Self.maxTextLength, text.utf8.count <= Self.maxTextBytes else {
      throw BackendError.malformed(
        "a text has at most \(Self.maxTextLength) characters and \(Self.maxTextBytes) bytes of UTF-8")
    }
    guard !text.isEmpty || !files.isEmpty || !attached.isEmpty else {
      throw BackendError.malformed("a message has text, images or files")
    }
    guard (clientMessageID?.utf8.count ?? 0) <= 128 else {
      throw BackendError.malformed("a client message id is 128 bytes at most")
    }
    guard files.count <= Self.maxImages else {
      throw BackendError(
        status: .badRequest, code: "E10", message: "A message carries at most \(Self.maxImages) images.")
    }
    var typed: [(Data, String)] = []
    for file in files {
      guard let type = ChatBlobs.imageType(of: file.data) else {
        throw BackendError(
          status: .badRequest, code: "E11",
          message: "\(file.filename ?? "A file") is not a PNG, JPEG, GIF or WebP image.")
      }
      guard file.data.count <= Self.maxImageSize else {
        throw BackendError(
          status: .badRequest, code: "E12",
          message: "\(file.filename ?? "An image") is over \(Self.maxImageSize >> 20) MiB.")
      }
      typed.append((file.data, type))
    }
    let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    func stored(_ state: ChatState) -> ChatState.Message? {
      guard let clientMessageID else { return nil }
      return state.messages[conversationID]?.first { $0.senderID == me && $0.clientMessageID == clientMessageID }
    }
    // First the images and files, under ids of their own, so that a refusal (E507) stores nothing; then, in one lock
    // with a second look at membership and at the client message id (the body took a while to read, and a twin of
    // this request may have been faster), the message, or the images and files go again.
    let (imageIDs, fileIDs) = try state.withLock { state in
      if stored(state) != nil { return ([String](), [String]()) }
      guard state.messageCount < ChatState.maxMessages else { throw BackendError.full("messages") }
      return (typed.map { _ in state.newID("i") }, attached.map { _ in state.newID("f") })
    }
    let blobIDs = imageIDs + fileIDs
    let blobs = zip(typed, imageIDs).map { ($0.0, $0.1, $1) } + zip(attached, fileIDs).map { ($0.data, $0.type, $1) }
    for (data, type, id) in blobs {
      do {
        try self.blobs.store(data, contentType: type, conversationID: conversationID, as: id)
      } catch {
        self.blobs.remove(blobIDs)
        throw error
      }
    }
    let mentions = mentioned(in: text, of: conversationID)
    let message: ChatState.Message
    let parent: ChatState.Message?
    let created: Bool
    let members: [String]
    do {
      (message, parent, created, members) = try state.withLock { state in
        let members = try Self.conversation(conversationID, of: me, in: state).memberIDs
        if let sent = stored(state) { return (sent, nil, false, members) }
        if let replyTo {
          guard state.messages[conversationID]?.contains(where: { $0.id == replyTo && !$0.deleted }) == true else {
            throw BackendError.notFound("The message replied to")
          }
        }
        let last = state.messages[conversationID]?.last?.createdAt ?? 0
        var message = ChatState.Message(
          id: state.newID("m"), conversationID: conversationID, clientMessageID: clientMessageID, senderID: me,
          text: text, imageIDs: imageIDs, createdAt: max(now, last + 1),
          seq: (state.messages[conversationID]?.count ?? 0) + 1, replyTo: replyTo)
        message.files = zip(attached, fileIDs).map { file, id in
          ChatState.File(id: id, name: file.name, size: file.data.count, contentType: file.type)
        }
        message.version = state.nextVersion(of: conversationID)
        message.createdVersion = message.version
        message.mentions = mentions
        state.messages[conversationID, default: []].append(message)
        state.messageCount += 1
        state.readPointers[conversationID, default: [:]][me] = message.id
        let parent = replyTo.flatMap { id in
          state.changeMessage(id, in: conversationID) { parent in
            parent.replyCount += 1
            parent.lastReplyID = message.id
          }
        }
        return (message, parent, true, members)
      }
    } catch {
      self.blobs.remove(blobIDs)
      throw error
    }
    if !created { self.blobs.remove(blobIDs) }
    // Every member's sockets hear of a new message, the sender's other devices too; a re-send is not news.
    if created { push("message", members, messageJSON(message)) }
    if let parent { pushChange(.reply, parent, to: members) }
    return .json(messageJSON(message), status: created ? .created : .ok)
  }

  /// `GET …/messages?after=ID|before=ID&limit=N`: at most `limit` (50 by default, 100 at most) messages, oldest
  /// first: the first ones after `after`, the last ones before `before`, or the newest; `hasMore` says whether the
  /// page stopped short of the end in its direction. A page also stops at ``maxPageBytes`` of messages. With
  /// `brief=true`, each message comes without its text and images (`"brief": true`): what a client that cannot take a
  /// message whole learns of it, to show it as unavailable and page past it.
  private func listMessages(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    let limit = try Self.limit(request.query["limit"])
    let brief = try Self.flag(request.query["brief"], "brief")
    let thread = request.query["thread"]
    let (page, hasMore, version) = try state.withLock { state -> ([ChatState.Message], Bool, Int) in
      _ = try Self.conversation(conversationID, of: me, in: state)
      let version = state.versions[conversationID] ?? 0
      var all = state.messages[conversationID] ?? []
      if let thread {
        guard all.contains(where: { $0.id == thread }) else { throw BackendError.notFound("The thread's message") }
        all = all.filter { $0.replyTo == thread || $0.id == request.query["after"] || $0.id == request.query["before"] }
      }
      if let after = request.query["after"] {
        guard let index = all.firstIndex(where: { $0.id == after }) else { throw BackendError.notFound("The message") }
        let rest = all[(index + 1)...]
        let page = brief ? Array(rest.prefix(limit)) : Self.weighed(Array(rest.prefix(limit)), keepingNewest: false)
        return (page, rest.count > page.count, version)
      }
      var end = all.endIndex
      if let before = request.query["before"] {
        guard let index = all.firstIndex(where: { $0.id == before }) else { throw BackendError.notFound("The message") }
        end = index
      }
      let newest = Array(all[max(0, end - limit)..<end])
      let page = brief ? newest : Self.weighed(newest, keepingNewest: true)
      return (page, end - page.count > 0, version)
    }
    return .json([
      "messages": .array(page.map { brief ? briefJSON($0) : messageJSON($0) }), "hasMore": .bool(hasMore),
      "version": .number(Double(version)),
    ])
  }

  /// `messages`, oldest first, cut to ``maxPageBytes`` of JSON (one message at least): the oldest kept, or the newest
  /// when `keepingNewest` (a page that ends at a point, such as the newest, keeps what is nearest it).
  static func weighed(_ messages: [ChatState.Message], keepingNewest: Bool) -> [ChatState.Message] {
    var kept: [ChatState.Message] = []
    var bytes = 0
    for message in keepingNewest ? messages.reversed() : messages {
      // The text's JSON: each byte once, a control character as a six-byte escape; the rest is under 1 KB.
      let weight =
        message.text.utf8.reduce(0) { $0 + ($1 < 0x20 ? 6 : 1) } + 1_024 + message.imageIDs.count * 128
        + message.files.count * 1_024
      guard kept.isEmpty || bytes + weight <= maxPageBytes else { break }
      bytes += weight
      kept.append(message)
    }
    return keepingNewest ? kept.reversed() : kept
  }

  /// `POST …/read {"messageId"}`: the caller has read up to that message; the conversation's unread count for them
  /// is what came after it from others.
  private func markRead(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    guard case .string(let messageID)? = try Self.object(request)["messageId"] else {
      throw BackendError.malformed(#"expected {"messageId"}"#)
    }
    let (unread, mentionCount, seq, members) = try state.withLock { state in
      let members = try Self.conversation(conversationID, of: me, in: state).memberIDs
      guard let read = state.messages[conversationID]?.first(where: { $0.id == messageID }) else {
        throw BackendError.notFound("The message")
      }
      state.readPointers[conversationID, default: [:]][me] = messageID
      return (
        state.unreadCount(in: conversationID, for: me), state.unreadMentionCount(in: conversationID, for: me), read.seq,
        members
      )
    }
    // The other members see how far this one read (a DM's "seen", a channel's "read by").
    push(
      "memberRead", members.filter { $0 != me },
      [
        "conversationId": .string(conversationID), "userId": .string(me), "messageId": .string(messageID),
        "seq": .number(Double(seq)),
      ])
    // The reader's other devices (and this one's socket) hear of it: their lists' unread counts follow.
    push(
      "read", [me],
      [
        "conversationId": .string(conversationID), "lastReadMessageId": .string(messageID),
        "unreadCount": .number(Double(unread)), "unreadMentionCount": .number(Double(mentionCount)),
      ])
    return .json(["unreadCount": .number(Double(unread)), "unreadMentionCount": .number(Double(mentionCount))])
  }

  /// `GET …/reads`: how far each member has read: `{"reads":[{"userId","messageId","seq"}]}`, a member who never read
  /// (nor sent) left out.
  private func listReads(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let conversationID = request.parameter("conversation") ?? ""
    let reads = try state.withLock { state -> [JSONValue] in
      let members = try Self.conversation(conversationID, of: me, in: state).memberIDs
      let messages = state.messages[conversationID] ?? []
      let pointers = state.readPointers[conversationID] ?? [:]
      return members.compactMap { member in
        guard let id = pointers[member], let read = messages.first(where: { $0.id == id }) else { return nil }
        return ["userId": .string(member), "messageId": .string(id), "seq": .number(Double(read.seq))]
      }
    }
    return .json(["reads": .array(reads)])
  }

  /// `GET /v1/chat-images/:image`, for members of the image's conversation: the bytes with their type and `ETag`;
  /// 304 for a matching `If-None-Match`. Anyone else gets the 404 of an image that does not exist.
  private func image(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let id = request.parameter("image") ?? ""
    // A message's image (`i…`): never one of its files, which have their own route.
    guard id.hasPrefix("i"), let image = blobs.blob(id),
      state.withLock({ $0.conversations[image.conversationID]?.memberIDs.contains(me) }) == true
    else { throw BackendError.notFound("The image") }
    return ChatBlobs.response(image, ifNoneMatch: request.header("If-None-Match"))
  }

  /// The conversation `id` (a channel or a DM room) that `userID` is a member of: E404, or E403 for a non-member.
  static func conversation(_ id: String, of userID: String, in state: ChatState) throws -> ChatState.Conversation {
    guard let conversation = state.conversations[id] else { throw BackendError.notFound("The conversation") }
    guard conversation.memberIDs.contains(userID) else { throw notMember("You", of: "conversation") }
    return conversation
  }

  /// `true` for `"true"`, `false` for `"false"` or none; anything else is malformed.
  static func flag(_ given: String?, _ name: String) throws -> Bool {
    switch given {
    case nil, "false": return false
    case "true": return true
    default: throw BackendError.malformed("\(name) is true or false")
    }
  }

  static func limit(_ given: String?) throws -> Int {
    guard let given else { return 50 }
    guard let limit = Int(given), (1...maxPage).contains(limit) else {
      throw BackendError.malformed("limit is a number from 1 to \(maxPage)")
    }
    return limit
  }

  /// `message` without its text and images: at most a few hundred bytes, whatever the message weighs.
  func briefJSON(_ message: ChatState.Message) -> JSONValue {
    [
      "id": .string(message.id), "conversationId": .string(message.conversationID),
      "clientMessageId": message.clientMessageID.map(JSONValue.string) ?? .null, "senderId": .string(message.senderID),
      "text": "", "images": [], "createdAt": .number(Double(message.createdAt)), "seq": .number(Double(message.seq)),
      "files": [], "brief": true, "deleted": .bool(message.deleted), "version": .number(Double(message.version)),
    ]
  }

  func messageJSON(_ message: ChatState.Message) -> JSONValue {
    [
      "id": .string(message.id), "conversationId": .string(message.conversationID),
      "clientMessageId": message.clientMessageID.map(JSONValue.string) ?? .null, "senderId": .string(message.senderID),
      "text": .string(message.text), "images": .array(message.imageIDs.map { .string("/v1/chat-images/\($0)") }),
      "createdAt": .number(Double(message.createdAt)), "seq": .number(Double(message.seq)),
      "editedAt": message.editedAt.map { .number(Double($0)) } ?? .null, "deleted": .bool(message.deleted),
      "replyTo": message.replyTo.map(JSONValue.string) ?? .null, "replyCount": .number(Double(message.replyCount)),
      "lastReplyId": message.lastReplyID.map(JSONValue.string) ?? .null,
      "reactions": .array(
        message.reactions.map { ["emoji": .string($0.emoji), "userIds": .array($0.userIDs.map(JSONValue.string))] }),
      "version": .number(Double(message.version)), "mentions": .array(message.mentions.map(JSONValue.string)),
      "files": .array(
        message.files.map { file in
          [
            "name": .string(file.name), "size": .number(Double(file.size)), "contentType": .string(file.contentType),
            "url": .string("/v1/chat-files/\(file.id)"),
          ]
        }),
    ]
  }
}
