/// The person a session belongs to, as the auth backend describes them (`{"id","email","nickname","profileImage"}`).
public struct SessionUser: Codable, Hashable, Sendable {
  /// The backend's id for the user, for example `user-demo`.
  public var id: String
  /// The email the user signs in with.
  public var email: String
  /// The name shown to other people.
  public var nickname: String
  /// The path of their profile image on the backend (`/v1/profile-images/p7`), if they uploaded one.
  public var profileImage: String?

  /// The user the backend signed in, as `/v1/me` describes them.
  public init(id: String, email: String, nickname: String, profileImage: String? = nil) {
    self.id = id
    self.email = email
    self.nickname = nickname
    self.profileImage = profileImage
  }
}
