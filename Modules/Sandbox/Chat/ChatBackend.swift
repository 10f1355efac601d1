import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// The chat backend's workspaces, channels and direct-message rooms (SandboxAPI §7), for the signed-in user of §2's
/// bearer token. Only members see a workspace or a conversation; only an owner renames, deletes or hands over one.
struct ChatBackend: Sendable {
  let auth: AuthBackend
  let state = Locked(ChatState())
  /// The images and files of messages and the profile images, by id.
  let blobs: ChatBlobs
  /// The users a workspace to try is made for when the backend has none (``ChatState/seed(userIDs:now:)``); empty
  /// for none.
  let seedUserIDs: [String]

  /// Emits an event (`message`, `read`, `channel`, …: SandboxAPI §7) with a payload to every socket of the users given.
  let push: @Sendable (_ event: String, _ userIDs: [String], _ payload: JSONValue) -> Void

  /// A backend of `auth`'s users, its images and files in `imagesDirectory` (in memory when `nil`), that pushes through `push`;
  /// with `seedUserIDs`, it starts with a workspace for them to try.
  init(
    auth: AuthBackend, imagesDirectory: URL? = nil, seedUserIDs: [String] = [],
    push: @escaping @Sendable (_ event: String, _ userIDs: [String], _ payload: JSONValue) -> Void
  ) {
    self.auth = auth
    self.push = push
    self.seedUserIDs = seedUserIDs
    blobs = ChatBlobs(directory: imagesDirectory)
    seed()
  }

  /// Makes the workspace to try, if there are users to make it for and no workspace yet.
  private func seed() {
    guard !seedUserIDs.isEmpty else { return }
    let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    state.withLock { $0.seed(userIDs: seedUserIDs, now: now) }
  }

  /// Every route, each answering a request without a live access token (E02, E05) before reading its body: a
  /// message may announce 91 MiB.
  var routes: [Route] {
    let auth = auth
    return
      ([
        Route(.get, "/v1/workspaces", handler: listWorkspaces),
        Route(.post, "/v1/workspaces", handler: createWorkspace),
        Route(.patch, "/v1/workspaces/:workspace", handler: renameWorkspace),
        Route(.delete, "/v1/workspaces/:workspace", handler: deleteWorkspace),
        Route(.get, "/v1/workspaces/:workspace/members", handler: workspaceMembers),
        Route(.post, "/v1/workspaces/:workspace/members", handler: invite),
        Route(.post, "/v1/workspaces/:workspace/owner", handler: transferWorkspace),
        Route(.get, "/v1/workspaces/:workspace/channels", handler: listChannels),
        Route(.post, "/v1/workspaces/:workspace/channels", handler: createChannel),
        Route(.get, "/v1/workspaces/:workspace/dms", handler: listDirectMessages),
        Route(.post, "/v1/workspaces/:workspace/dms", handler: openDirectMessage),
        Route(.patch, "/v1/channels/:channel", handler: renameChannel),
        Route(.delete, "/v1/channels/:channel", handler: deleteChannel),
        Route(.post, "/v1/channels/:channel/join", handler: join),
        Route(.post, "/v1/channels/:channel/leave", handler: leave),
        Route(.post, "/v1/channels/:channel/owner", handler: transferChannel),
        Route(.get, "/v1/channels/:channel/members", handler: channelMembers),
      ] + messageRoutes + profileRoutes).map { $0.admitting { _ = try auth.account(of: $0) } }
  }

  /// Forgets every workspace and conversation.
  func reset() {
    state.withLock { $0 = ChatState() }
    blobs.reset()
    seed()
  }

  /// Everything, to be kept between runs.
  var snapshot: ChatState { state.withLock { $0 } }

  /// Puts back a snapshot.
  func restore(_ snapshot: ChatState) {
    var snapshot = snapshot
    // A file written before messages had a number: each conversation's are numbered in their order.
    for (conversationID, messages) in snapshot.messages where messages.contains(where: { $0.seq == 0 }) {
      snapshot.messages[conversationID] = messages.enumerated().map { index, message in
        var numbered = message
        numbered.seq = index + 1
        return numbered
      }
    }
    state.withLock { $0 = snapshot }
    seed()
  }

  // MARK: - Workspaces

  private func listWorkspaces(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let mine = state.withLock { state in
      state.workspaces.values.filter { $0.memberIDs.contains(me) }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }
    return .json(["workspaces": .array(mine.map(workspaceJSON))])
  }

  private func createWorkspace(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let name = try Self.name(in: request)
    let workspace = try state.withLock { state in
      try Self.checkRoom(state)
      let workspace = ChatState.Workspace(id: state.newID("w"), name: name, ownerID: me, memberIDs: [me])
      state.workspaces[workspace.id] = workspace
      return workspace
    }
    pushWorkspace(workspace)
    return .json(workspaceJSON(workspace), status: .created)
  }

  private func renameWorkspace(_ request: SandboxRequest) throws -> SandboxResponse {
    let name = try Self.name(in: request)
    let workspace = try changeWorkspace(request, ownerOnly: "rename") { $0.name = name }
    pushWorkspace(workspace)
    return .json(workspaceJSON(workspace))
  }

  private func deleteWorkspace(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let id = request.parameter("workspace") ?? ""
    let (imageIDs, memberIDs) = try state.withLock { state in
      let workspace = try Self.workspace(id, of: me, in: state)
      guard workspace.ownerID == me else { throw Self.notOwner("delete this workspace") }
      state.workspaces[id] = nil
      let imageIDs = state.removeConversations(
        state.conversations.values.filter { $0.workspaceID == id }.map(\.id))
      return (imageIDs, workspace.memberIDs)
    }
    blobs.remove(imageIDs)
    push("workspaceDeleted", memberIDs, ["id": .string(id)])
    return .json([:])
  }

  private func workspaceMembers(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let workspace = try state.withLock { try Self.workspace(request.parameter("workspace") ?? "", of: me, in: $0) }
    return .json(["members": .array(members(workspace.memberIDs))])
  }

  /// `POST /v1/workspaces/:workspace/members {"email"}`: any member adds the account with that email.
  private func invite(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .string(let email)? = try Self.object(request)["email"] else {
      throw BackendError.malformed(#"expected {"email"}"#)
    }
    // Looked up once membership is known: who is not a member learns nothing of which emails have accounts.
    let workspace = try changeWorkspace(request, ownerOnly: nil) { workspace in
      guard let invited = auth.directory.account(email: email) else { throw BackendError.notFound("An account") }
      if !workspace.memberIDs.contains(invited.id) { workspace.memberIDs.append(invited.id) }
    }
    pushWorkspace(workspace)
    return .json(workspaceJSON(workspace))
  }

  private func transferWorkspace(_ request: SandboxRequest) throws -> SandboxResponse {
    let newOwner = try Self.userID(in: request)
    let workspace = try changeWorkspace(request, ownerOnly: "hand over this workspace") { workspace in
      guard workspace.memberIDs.contains(newOwner) else { throw Self.notMember("The new owner", of: "workspace") }
      workspace.ownerID = newOwner
    }
    pushWorkspace(workspace)
    return .json(workspaceJSON(workspace))
  }

  /// Changes the workspace of the request's `:workspace` with `change`, for a member (or, with `ownerOnly`, the owner
  /// only, the words saying what only the owner may do).
  private func changeWorkspace(
    _ request: SandboxRequest, ownerOnly: String?, _ change: (inout ChatState.Workspace) throws -> Void
  ) throws -> ChatState.Workspace {
    let me = try auth.account(of: request).id
    let id = request.parameter("workspace") ?? ""
    return try state.withLock { state in
      var workspace = try Self.workspace(id, of: me, in: state)
      if let ownerOnly, workspace.ownerID != me { throw Self.notOwner(ownerOnly) }
      try change(&workspace)
      state.workspaces[id] = workspace
      return workspace
    }
  }

  // MARK: - Pushes

  /// Tells every member of `workspace` of it as it is now (created, renamed, a member invited, handed over): a
  /// workspace list follows without asking again.
  private func pushWorkspace(_ workspace: ChatState.Workspace) {
    push("workspace", workspace.memberIDs, workspaceJSON(workspace))
  }

  /// Tells every member of the channel's workspace of the channel as each of them sees it (`joined`, `unreadCount`
  /// are theirs): created, renamed, joined, left or handed over.
  func pushChannel(_ channel: ChatState.Conversation) {
    let memberIDs = state.withLock { $0.workspaces[channel.workspaceID]?.memberIDs ?? [] }
    for id in memberIDs { push("channel", [id], channelJSON(channel, for: id)) }
  }

  // MARK: - Lookups

  /// The workspace `id`, which `userID` is a member of: E404 when there is none, E403 when they are not a member.
  static func workspace(_ id: String, of userID: String, in state: ChatState) throws -> ChatState.Workspace {
    guard let workspace = state.workspaces[id] else { throw BackendError.notFound("The workspace") }
    guard workspace.memberIDs.contains(userID) else { throw notMember("You", of: "workspace") }
    return workspace
  }

  /// The channel `id`, in a workspace `userID` is a member of.
  static func channel(_ id: String, visibleTo userID: String, in state: ChatState) throws
    -> ChatState.Conversation
  {
    guard let channel = state.conversations[id], channel.kind == .channel else {
      throw BackendError.notFound("The channel")
    }
    _ = try workspace(channel.workspaceID, of: userID, in: state)
    return channel
  }

  static func checkRoom(_ state: ChatState) throws {
    guard state.workspaces.count + state.conversations.count < ChatState.maxEntities else {
      throw BackendError.full("chats")
    }
  }

  static func notOwner(_ what: String) -> BackendError {
    BackendError(status: .forbidden, code: "E403", message: "Only the owner can \(what).")
  }

  static func notMember(_ who: String, of what: String) -> BackendError {
    let verb = who == "You" ? "are" : "is"
    return BackendError(status: .forbidden, code: "E403", message: "\(who) \(verb) not a member of this \(what).")
  }

  // MARK: - Bodies

  static func object(_ request: SandboxRequest) throws -> [String: JSONValue] {
    guard case .object(let body)? = JSONValue.parse(request.body) else {
      throw BackendError.malformed("expected a JSON object")
    }
    return body
  }

  /// The body's `name`: 1 to 100 characters once trimmed.
  static func name(in request: SandboxRequest) throws -> String {
    guard case .string(let raw)? = try object(request)["name"] else {
      throw BackendError.malformed(#"expected {"name"}"#)
    }
    let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...100).contains(name.count) else { throw BackendError.malformed("a name has 1 to 100 characters") }
    return name
  }

  static func userID(in request: SandboxRequest) throws -> String {
    guard case .string(let id)? = try object(request)["userId"], !id.isEmpty else {
      throw BackendError.malformed(#"expected {"userId"}"#)
    }
    return id
  }

  // MARK: - JSON

  private func workspaceJSON(_ workspace: ChatState.Workspace) -> JSONValue {
    [
      "id": .string(workspace.id), "name": .string(workspace.name), "ownerId": .string(workspace.ownerID),
      "memberCount": .number(Double(workspace.memberIDs.count)),
    ]
  }

  func channelJSON(_ channel: ChatState.Conversation, for userID: String) -> JSONValue {
    [
      "id": .string(channel.id), "workspaceId": .string(channel.workspaceID), "name": .string(channel.name),
      "ownerId": channel.ownerID.map(JSONValue.string) ?? .null, "joined": .bool(channel.memberIDs.contains(userID)),
      "memberCount": .number(Double(channel.memberIDs.count)),
      "unreadCount": .number(Double(state.withLock { $0.unreadCount(in: channel.id, for: userID) })),
      "unreadMentionCount": .number(Double(state.withLock { $0.unreadMentionCount(in: channel.id, for: userID) })),
    ]
  }

  func directMessageJSON(_ room: ChatState.Conversation, for userID: String) -> JSONValue {
    [
      "id": .string(room.id), "workspaceId": .string(room.workspaceID),
      "members": .array(members(room.memberIDs)),
      "unreadCount": .number(Double(state.withLock { $0.unreadCount(in: room.id, for: userID) })),
      "unreadMentionCount": .number(Double(state.withLock { $0.unreadMentionCount(in: room.id, for: userID) })),
      "lastMessage": state.withLock { $0.messages[room.id]?.last }.map(messageJSON) ?? .null,
    ]
  }

  func members(_ ids: [String]) -> [JSONValue] {
    ids.compactMap { auth.directory.account(id: $0)?.json }
  }
}
