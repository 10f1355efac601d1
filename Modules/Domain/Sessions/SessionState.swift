/// Where the session stands, as ``SessionManager/states()`` publishes it.
public enum SessionState: Hashable, Sendable {
  /// Nobody is signed in: never, or after ``SessionManager/logout()``.
  case loggedOut
  /// `user` is signed in, and authenticated calls carry their token.
  case loggedIn(SessionUser)
  /// The session ended without the user asking: the refresh token was refused (expired or revoked), so the tokens
  /// were wiped and the user must sign in again. ``SessionManager/logout()`` or a new sign-in leaves this state.
  case expired
}
