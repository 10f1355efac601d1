import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

extension ChatBackend {
  /// `GET /v1/workspaces/:workspace/channels[?joined=true]`: every channel of the workspace, or only those joined.
  func listChannels(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let joinedOnly = request.query["joined"] == "true"
    let channels = try state.withLock { state in
      let workspace = try Self.workspace(request.parameter("workspace") ?? "", of: me, in: state)
      return state.conversations(in: workspace.id, kind: .channel).filter { !joinedOnly || $0.memberIDs.contains(me) }
    }
    return .json(["channels": .array(channels.map { channelJSON($0, for: me) })])
  }

  func createChannel(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let name = try Self.name(in: request)
    let channel = try state.withLock { state in
      let workspace = try Self.workspace(request.parameter("workspace") ?? "", of: me, in: state)
      guard !state.conversations(in: workspace.id, kind: .channel).contains(where: { $0.name == name }) else {
        throw BackendError.conflict("The workspace has a channel named \(name).")
      }
      try Self.checkRoom(state)
      let channel = ChatState.Conversation(
        id: state.newID("c"), workspaceID: workspace.id, kind: .channel, name: name, ownerID: me, memberIDs: [me])
      state.conversations[channel.id] = channel
      return channel
    }
    pushChannel(channel)
    return .json(channelJSON(channel, for: me), status: .created)
  }

  func renameChannel(_ request: SandboxRequest) throws -> SandboxResponse {
    let name = try Self.name(in: request)
    let (channel, me) = try changeChannel(request, ownerOnly: "rename this channel") { channel, _ in
      channel.name = name
    }
    return .json(channelJSON(channel, for: me))
  }

  func deleteChannel(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let id = request.parameter("channel") ?? ""
    let (imageIDs, channel, memberIDs) = try state.withLock { state in
      let channel = try Self.channel(id, visibleTo: me, in: state)
      guard channel.ownerID == me else { throw Self.notOwner("delete this channel") }
      return (
        state.removeConversations([id]), channel, state.workspaces[channel.workspaceID]?.memberIDs ?? []
      )
    }
    blobs.remove(imageIDs)
    push("channelDeleted", memberIDs, ["id": .string(id), "workspaceId": .string(channel.workspaceID)])
    return .json([:])
  }

  func join(_ request: SandboxRequest) throws -> SandboxResponse {
    let (channel, me) = try changeChannel(request, ownerOnly: nil) { channel, me in
      if !channel.memberIDs.contains(me) { channel.memberIDs.append(me) }
    }
    return .json(channelJSON(channel, for: me))
  }

  /// Leaves the channel; an owner who leaves hands it to the member who joined first after them (a channel left by
  /// everyone keeps no owner until someone joins).
  func leave(_ request: SandboxRequest) throws -> SandboxResponse {
    let (channel, me) = try changeChannel(request, ownerOnly: nil) { channel, me in
      channel.memberIDs.removeAll { $0 == me }
      if channel.ownerID == me { channel.ownerID = channel.memberIDs.first }
    }
    return .json(channelJSON(channel, for: me))
  }

  func transferChannel(_ request: SandboxRequest) throws -> SandboxResponse {
    let newOwner = try Self.userID(in: request)
    let (channel, me) = try changeChannel(request, ownerOnly: "hand over this channel") { channel, _ in
      guard channel.memberIDs.contains(newOwner) else { throw Self.notMember("The new owner", of: "channel") }
      channel.ownerID = newOwner
    }
    return .json(channelJSON(channel, for: me))
  }

  func channelMembers(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let channel = try state.withLock { try Self.channel(request.parameter("channel") ?? "", visibleTo: me, in: $0) }
    return .json(["members": .array(members(channel.memberIDs))])
  }

  /// Changes the channel of the request's `:channel` with `change` (given the caller's id), for a member of its
  /// workspace (or, with `ownerOnly`, the channel's owner only). An owner-less channel is joined by its first member.
  func changeChannel(
    _ request: SandboxRequest, ownerOnly: String?, _ change: (inout ChatState.Conversation, String) throws -> Void
  ) throws -> (ChatState.Conversation, String) {
    let me = try auth.account(of: request).id
    let id = request.parameter("channel") ?? ""
    let channel = try state.withLock { state in
      var channel = try Self.channel(id, visibleTo: me, in: state)
      if let ownerOnly, channel.ownerID != me { throw Self.notOwner(ownerOnly) }
      try change(&channel, me)
      if channel.ownerID == nil { channel.ownerID = channel.memberIDs.first }
      state.conversations[id] = channel
      return channel
    }
    pushChannel(channel)
    return (channel, me)
  }

  // MARK: - Direct messages

  /// `GET /v1/workspaces/:workspace/dms`: the caller's DM rooms in the workspace.
  func listDirectMessages(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let rooms = try state.withLock { state in
      let workspace = try Self.workspace(request.parameter("workspace") ?? "", of: me, in: state)
      return state.conversations(in: workspace.id, kind: .directMessage).filter { $0.memberIDs.contains(me) }
    }
    return .json(["dms": .array(rooms.map { directMessageJSON($0, for: me) })])
  }

  /// `POST /v1/workspaces/:workspace/dms {"userId"}`: the DM room with that member, opened now (201) or found (200).
  func openDirectMessage(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let other = try Self.userID(in: request)
    guard other != me else { throw BackendError.malformed("a direct message is with another member") }
    let (room, created) = try state.withLock { state in
      let workspace = try Self.workspace(request.parameter("workspace") ?? "", of: me, in: state)
      guard workspace.memberIDs.contains(other) else { throw Self.notMember("That user", of: "workspace") }
      let pair = Set([me, other])
      if let room = state.conversations(in: workspace.id, kind: .directMessage).first(where: {
        Set($0.memberIDs) == pair
      }) {
        return (room, false)
      }
      try Self.checkRoom(state)
      let room = ChatState.Conversation(
        id: state.newID("d"), workspaceID: workspace.id, kind: .directMessage, name: "", ownerID: nil,
        memberIDs: [me, other])
      state.conversations[room.id] = room
      return (room, true)
    }
    if created {
      for id in room.memberIDs { push("dm", [id], directMessageJSON(room, for: id)) }
    }
    return .json(directMessageJSON(room, for: me), status: created ? .created : .ok)
  }
}
