import Foundation

/// A member of a workspace or a conversation.
public struct Member: Sendable, Hashable, Codable, Identifiable {
  /// The user's id.
  public var id: String
  /// The name shown for them.
  public var nickname: String
  /// The path of their profile image on the backend (`/v1/profile-images/p7`), if they uploaded one.
  public var profileImage: String?
  /// Their email, when the server shows it: what tells two members of the same nickname apart.
  public var email: String?

  /// A member.
  public init(id: String, nickname: String, profileImage: String? = nil, email: String? = nil) {
    self.id = id
    self.nickname = nickname
    self.profileImage = profileImage
    self.email = email
  }
}
