import Domain
import Foundation
import Networking

/// The chat backend's API (SandboxAPI §7): workspaces, channels, DM rooms and messages, as endpoints on `/v1` with
/// camelCase JSON. ``ChatService`` sends them through the session's client, which puts the access token on each.
///
/// ```swift
/// import Foundation
///
/// let baseURL = URL(string: "https://chat.example.com")!
/// let page = ChatRouter(.messages(conversationID: "c2", after: "m41", before: nil, limit: 100), baseURL: baseURL)
/// print(page)  // GET /v1/conversations/c2/messages
/// ```
public struct ChatRouter: Endpoint, CustomStringConvertible {
  /// One call of the chat API.
  public enum Route: Sendable {
    /// `GET /v1/workspaces`: the caller's workspaces.
    case workspaces
    /// `POST /v1/workspaces` with `{"name"}`.
    case createWorkspace(name: String)
    /// `PATCH /v1/workspaces/{id}` with `{"name"}`.
    case renameWorkspace(id: String, name: String)
    /// `DELETE /v1/workspaces/{id}`.
    case deleteWorkspace(id: String)
    /// `GET /v1/workspaces/{id}/members`.
    case workspaceMembers(id: String)
    /// `POST /v1/workspaces/{id}/members` with `{"email"}`.
    case invite(workspaceID: String, email: String)
    /// `POST /v1/workspaces/{id}/owner` with `{"userId"}`.
    case transferWorkspace(id: String, to: String)
    /// `GET /v1/workspaces/{id}/channels`, `?joined=true` for the caller's only.
    case channels(workspaceID: String, joinedOnly: Bool)
    /// `POST /v1/workspaces/{id}/channels` with `{"name"}`.
    case createChannel(workspaceID: String, name: String)
    /// `PATCH /v1/channels/{id}` with `{"name"}`.
    case renameChannel(id: String, name: String)
    /// `DELETE /v1/channels/{id}`.
    case deleteChannel(id: String)
    /// `POST /v1/channels/{id}/join`.
    case join(channelID: String)
    /// `POST /v1/channels/{id}/leave`.
    case leave(channelID: String)
    /// `POST /v1/channels/{id}/owner` with `{"userId"}`.
    case transferChannel(id: String, to: String)
    /// `GET /v1/channels/{id}/members`.
    case channelMembers(id: String)
    /// `GET /v1/workspaces/{id}/dms`: the caller's DM rooms.
    case directMessages(workspaceID: String)
    /// `POST /v1/workspaces/{id}/dms` with `{"userId"}`: the room with that member, opened or found.
    case openDirectMessage(workspaceID: String, userID: String)
    /// `GET /v1/conversations/{id}/messages`: after a message, before one, or the newest; at most `limit`; `brief`, each
    /// message without its text and images.
    case messages(conversationID: String, after: String?, before: String?, limit: Int, brief: Bool = false)
    /// `POST /v1/conversations/{id}/messages`: a `multipart/form-data` body, in memory for a message of text alone and
    /// streamed from a file for one with images or files.
    case send(conversationID: String, body: HTTPBody)
    /// `POST /v1/conversations/{id}/read` with `{"messageId"}`.
    case read(conversationID: String, messageID: String)
    /// `GET /v1/conversations/{id}/reads`: how far each member has read.
    case reads(conversationID: String)
    /// `GET /v1/conversations/{id}/messages?thread=`: the replies to a message, paged as the conversation's are.
    case replies(conversationID: String, parentID: String, before: String?, limit: Int)
    /// `PATCH /v1/conversations/{id}/messages/{messageId}` with `{"text","changeId"}`.
    case edit(conversationID: String, messageID: String, text: String, changeID: String)
    /// `DELETE /v1/conversations/{id}/messages/{messageId}`.
    case delete(conversationID: String, messageID: String)
    /// `POST /v1/conversations/{id}/messages/{messageId}/reactions` with `{"emoji","changeId"}`.
    case addReaction(conversationID: String, messageID: String, emoji: String, changeID: String)
    /// `DELETE /v1/conversations/{id}/messages/{messageId}/reactions?emoji=`.
    case removeReaction(conversationID: String, messageID: String, emoji: String)
    /// `GET /v1/conversations/{id}/changes?since=&limit=`: the messages changed after a change number; `brief`,
    /// each without its text and images.
    case changes(conversationID: String, since: Int, limit: Int, brief: Bool = false)
  }

  /// Which call this is.
  public let route: Route
  /// The backend's scheme, host and any path prefix.
  public let baseURL: URL

  /// An endpoint for `route` on the backend at `baseURL`.
  public init(_ route: Route, baseURL: URL) {
    self.route = route
    self.baseURL = baseURL
  }

  /// The route's path, each id encoded as one segment.
  public var path: EndpointPath {
    switch route {
    case .workspaces, .createWorkspace: ["v1", "workspaces"]
    case .renameWorkspace(let id, _), .deleteWorkspace(let id): ["v1", "workspaces", id]
    case .workspaceMembers(let id), .invite(let id, _): ["v1", "workspaces", id, "members"]
    case .transferWorkspace(let id, _): ["v1", "workspaces", id, "owner"]
    case .channels(let id, _), .createChannel(let id, _): ["v1", "workspaces", id, "channels"]
    case .renameChannel(let id, _), .deleteChannel(let id): ["v1", "channels", id]
    case .join(let id): ["v1", "channels", id, "join"]
    case .leave(let id): ["v1", "channels", id, "leave"]
    case .transferChannel(let id, _): ["v1", "channels", id, "owner"]
    case .channelMembers(let id): ["v1", "channels", id, "members"]
    case .directMessages(let id), .openDirectMessage(let id, _): ["v1", "workspaces", id, "dms"]
    case .messages(let id, _, _, _, _), .send(let id, _): ["v1", "conversations", id, "messages"]
    case .read(let id, _): ["v1", "conversations", id, "read"]
    case .replies(let id, _, _, _): ["v1", "conversations", id, "messages"]
    case .reads(let id): ["v1", "conversations", id, "reads"]
    case .edit(let id, let message, _, _), .delete(let id, let message):
      ["v1", "conversations", id, "messages", message]
    case .addReaction(let id, let message, _, _), .removeReaction(let id, let message, _):
      ["v1", "conversations", id, "messages", message, "reactions"]
    case .changes(let id, _, _, _): ["v1", "conversations", id, "changes"]
    }
  }

  /// `GET` for the lists, `PATCH` for renames, `DELETE` for deletions, `POST` for the rest.
  public var method: HTTPMethod {
    switch route {
    case .workspaces, .workspaceMembers, .channels, .channelMembers, .directMessages, .messages, .replies, .changes,
      .reads:
      .get
    case .renameWorkspace, .renameChannel, .edit: .patch
    case .deleteWorkspace, .deleteChannel, .delete, .removeReaction: .delete
    default: .post
    }
  }

  /// `joined=true` for the caller's channels; a page's cursor and limit.
  public var query: [QueryItem] {
    switch route {
    case .channels(_, let joinedOnly): joinedOnly ? [QueryItem("joined", "true")] : []
    case .messages(_, let after, let before, let limit, let brief):
      (after.map { [QueryItem("after", $0)] } ?? []) + (before.map { [QueryItem("before", $0)] } ?? [])
        + [QueryItem("limit", String(limit))] + (brief ? [QueryItem("brief", "true")] : [])
    case .replies(_, let parentID, let before, let limit):
      [QueryItem("thread", parentID)] + (before.map { [QueryItem("before", $0)] } ?? [])
        + [QueryItem("limit", String(limit))]
    case .removeReaction(_, _, let emoji): [QueryItem("emoji", emoji)]
    case .changes(_, let since, let limit, let brief):
      [QueryItem("since", String(since)), QueryItem("limit", String(limit))]
        + (brief ? [QueryItem("brief", "true")] : [])
    default: []
    }
  }

  /// The JSON of a create, rename, invite, transfer, DM, read, edit or reaction; the multipart body of a send.
  public var body: HTTPBody {
    switch route {
    case .createWorkspace(let name), .renameWorkspace(_, let name), .createChannel(_, let name),
      .renameChannel(_, let name):
      .json(["name": name])
    case .invite(_, let email): .json(["email": email])
    case .transferWorkspace(_, let userID), .transferChannel(_, let userID), .openDirectMessage(_, let userID):
      .json(["userId": userID])
    case .read(_, let messageID): .json(["messageId": messageID])
    case .edit(_, _, let text, let changeID): .json(["text": text, "changeId": changeID])
    case .addReaction(_, _, let emoji, let changeID): .json(["emoji": emoji, "changeId": changeID])
    case .send(_, let body): body
    default: .empty
    }
  }

  /// A send may carry 40 MiB of images: it gets five minutes, not the transport's default.
  public var timeout: Duration? {
    switch route {
    case .send: .seconds(300)
    default: nil
    }
  }

  /// The method and path, for example `GET /v1/workspaces/w1/channels`.
  public var description: String { "\(method) \(path)" }
}
