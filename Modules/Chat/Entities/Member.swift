import Foundation

/// A member of a workspace or a conversation.
public struct Member: Sendable, Hashable, Codable {
  /// The user's id.
  public var userID: String
  /// The name shown for them.
  public var nickname: String
  /// Their profile image, if any.
  public var profileURL: String?
  /// Their email, when the server shows it: what tells two members of the same nickname apart.
  public var email: String?

  /// A member.
  public init(userID: String, nickname: String, profileURL: String? = nil, email: String? = nil) {
    self.userID = userID
    self.nickname = nickname
    self.profileURL = profileURL
    self.email = email
  }
}
