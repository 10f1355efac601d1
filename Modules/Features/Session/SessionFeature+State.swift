import Domain

extension SessionFeature {
  /// What the sign-in screen and the signed-in header show.
  public struct State: Equatable, Sendable {
    /// The email typed.
    public var email: String
    /// The password typed; emptied once signed in.
    public var password: String
    /// Where the session is.
    public var status: Status
    /// Why the email cannot be sent, after a sign-in attempt, or `nil`.
    public var emailError: String?
    /// Why the password cannot be sent, after a sign-in attempt, or `nil`.
    public var passwordError: String?
    /// What went wrong last (a refused sign-in, the network, an expired session), or `nil`.
    public var errorMessage: String?

    /// A signed-out form, empty unless told otherwise.
    public init(
      email: String = "", password: String = "", status: Status = .signedOut, emailError: String? = nil,
      passwordError: String? = nil, errorMessage: String? = nil
    ) {
      self.email = email
      self.password = password
      self.status = status
      self.emailError = emailError
      self.passwordError = passwordError
      self.errorMessage = errorMessage
    }

    /// The signed-in user, or `nil`.
    public var user: SessionUser? {
      if case .signedIn(let user) = status { user } else { nil }
    }
  }

  /// Where a session is, as the screen shows it.
  public enum Status: Hashable, Sendable {
    /// Nobody is signed in: the form is shown.
    case signedOut
    /// A sign-in is on its way.
    case signingIn
    /// `user` is signed in.
    case signedIn(SessionUser)
    /// A sign-out is on its way.
    case signingOut
  }
}
