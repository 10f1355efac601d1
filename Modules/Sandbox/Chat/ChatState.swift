import Foundation

/// What the chat backend keeps (SandboxAPI §7): workspaces and their conversations (channels and DM rooms), each with
/// its members in the order they joined. Kept between runs by the embedded Sandbox.
struct ChatState: Codable, Sendable {
  struct Workspace: Codable, Sendable {
    let id: String
    var name: String
    var ownerID: String
    var memberIDs: [String]
  }

  struct Conversation: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
      case channel
      case directMessage = "dm"
    }

    let id: String
    let workspaceID: String
    let kind: Kind
    /// The channel's name; empty for a DM room, whose name is the other member's.
    var name: String
    /// The channel's owner; `nil` for a DM room.
    var ownerID: String?
    var memberIDs: [String]
  }

  var workspaces: [String: Workspace] = [:]
  var conversations: [String: Conversation] = [:]
  /// The last id handed out: ids are `w1`, `c2`, `d3`, … in creation order.
  var lastID = 0

  /// The most workspaces and conversations the backend keeps: a bound on what a client can make it hold.
  static let maxEntities = 10_000

  mutating func newID(_ prefix: String) -> String {
    lastID += 1
    return "\(prefix)\(lastID)"
  }

  /// The conversations of `workspaceID`, of `kind`, in creation order.
  func conversations(in workspaceID: String, kind: Conversation.Kind) -> [Conversation] {
    conversations.values.filter { $0.workspaceID == workspaceID && $0.kind == kind }
      .sorted { ($0.id.count, $0.id) < ($1.id.count, $1.id) }
  }
}
