import Foundation

/// A workspace: a team's channels, DM rooms and members.
public struct Workspace: Sendable, Hashable, Codable, Identifiable {
  /// The server's id.
  public var id: String
  /// Its name.
  public var name: String
  /// The user id of its owner.
  public var ownerID: String

  /// A workspace.
  public init(id: String, name: String, ownerID: String) {
    self.id = id
    self.name = name
    self.ownerID = ownerID
  }
}
