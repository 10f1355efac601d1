/// What it takes to create a user (Sendbird-compatible surface, REQUIREMENTS U12).
public struct UserCreationParams: Sendable, Hashable {
  /// The new user's id: 1–80 characters, unique in the application.
  public var userId: String
  /// The display name: at most 80 characters; may be empty.
  public var nickname: String
  /// The profile image's URL: at most 2048 characters; `nil` sends an empty one.
  public var profileURL: String?

  /// The parameters of one creation.
  public init(userId: String, nickname: String, profileURL: String? = nil) {
    self.userId = userId
    self.nickname = nickname
    self.profileURL = profileURL
  }
}

extension UserCreationParams {
  /// Checks the params against the Platform API's limits (REQUIREMENTS U13) without sending anything: what
  /// `createUser` checks first, with the same field paths: `params.userId`, `params.nickname`, `params.profileURL`.
  ///
  /// - Throws: ``UserManagerError`` of kind `UserManagerError.Kind.validation`, its ``UserManagerError/field`` the
  ///   field at fault.
  public func validate() throws {
    try UserValidation.creation(self)
  }
}
