import Domain
import Foundation

/// Signing in and out: a form checked before anything is sent, the session manager's state followed, and the parent
/// told when the session starts, ends or expires (REQUIREMENTS F1–F3, A4–A6).
///
/// - ``View/task`` starts following the session's states (a session restored at launch shows as signed in);
///   send it once, when the feature appears.
/// - ``View/providerSignedIn(_:idToken:nonce:)`` exchanges an identity token from Apple's or Kakao's SDK for a
///   session; a token the backend refuses (expired, another app's, a bad signature, a nonce that does not match)
///   sets ``State/errorMessage``.
/// - ``View/loginTapped`` checks the form first: an empty or malformed email or an empty password sets
///   ``State/emailError`` or ``State/passwordError`` and sends nothing.
/// - A refused sign-in (`E03`), a network failure and a storage failure each set ``State/errorMessage`` to a
///   sentence for the user; the form keeps what was typed.
/// - The parent hears ``Delegate/signedIn(_:)``, ``Delegate/signedOut`` and, when the session ends
///   without the user asking, ``Delegate/sessionExpired`` (F2): once per change, whether it came from this
///   feature's own sign-in or from the session manager. A state the manager already replaced when it arrives is
///   skipped, and the answer of a sign-in or sign-out counts only while the feature still waits for it, so a late
///   one never undoes a newer change. Another user signing in is a `signedOut`, then a `signedIn`; the same user with
///   a new profile is a ``Delegate/userChanged(_:)``.
///
/// ```swift
/// import Domain
/// import Foundation
///
/// var configuration = KeelConfiguration()
/// configuration.backendBaseURL = URL(string: "https://chat.example.com")!   // where users sign in
/// let dependencies = Dependencies.live(configuration: configuration)
///
/// let store = Store(initialState: SessionFeature.State(),
///                   reducer: SessionFeature.live(sessions: dependencies.sessions))
/// store.send(.view(.task))
/// store.send(.view(.emailChanged("demo@keel.dev")))
/// store.send(.view(.passwordChanged("demo-password")))
/// store.send(.view(.loginTapped))
/// ```
public struct SessionFeature: Reducer {
  /// What can happen to a session, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The feature appeared: follow the session's states.
    case task
    /// The email text changed.
    case emailChanged(String)
    /// The password text changed.
    case passwordChanged(String)
    /// Sign in with the form.
    case loginTapped
    /// The provider's SDK signed the user in: exchange its identity token (and the nonce the app asked with) for a
    /// session. Ignored while a sign-in or sign-out runs.
    case providerSignedIn(IdentityProvider, idToken: String, nonce: String?)
    /// Sign out.
    case logoutTapped
  }

  /// What the feature learns on its own.
  public enum Internal: Equatable, Sendable {
    /// The session manager published `state`.
    case sessionChanged(SessionState)
  }

  /// The outcome of a sign-in or a sign-out.
  public enum Response: Equatable, Sendable {
    /// Signed in as `user`.
    case loggedIn(SessionUser)
    /// Not signed in, for the reason in `message`, a sentence for the user.
    case loginFailed(message: String)
    /// Signed out on this device; `warning` says what did not work (the server not told), if anything.
    case loggedOut(warning: String?)
  }

  /// What the session tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// `user` is now signed in.
    case signedIn(SessionUser)
    /// The user signed out.
    case signedOut
    /// The session ended without the user asking (the refresh token was refused): show the sign-in form.
    case sessionExpired
    /// The signed-in user's profile changed (a new nickname or image): the same session, nothing to reset.
    case userChanged(SessionUser)
  }

  private struct StatesID: Hashable, Sendable {}
  private struct LoginID: Hashable, Sendable {}

  /// What the user reads when the session expired.
  public static let expiredMessage = "Your session has expired. Sign in again."

  private let client: SessionClient

  /// A session feature on `client`.
  public init(client: SessionClient) {
    self.client = client
  }

  /// A session feature on `sessions`.
  public static func live(sessions: SessionManager) -> SessionFeature {
    SessionFeature(client: .live(sessions))
  }

  /// Applies `action` to the session.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.task):
      return .run { [client] send in
        // A state already replaced is skipped: its successor is in the stream, and the feature must not go back.
        for await session in client.states() where session == client.current() {
          await send(.internal(.sessionChanged(session)))
        }
      }
      .cancellable(id: StatesID(), cancelInFlight: true)
    case .view(.emailChanged(let email)):
      state.email = email
      state.emailError = nil
      return .none
    case .view(.passwordChanged(let password)):
      state.password = password
      state.passwordError = nil
      return .none
    case .view(.loginTapped):
      return login(&state)
    case .view(.providerSignedIn(let provider, let idToken, let nonce)):
      guard state.status == .signedOut else { return .none }
      state.status = .signingIn
      state.errorMessage = nil
      return .run { [client] send in
        let user = try await client.signInWithProvider(provider, idToken, nonce)
        await send(.response(.loggedIn(user)))
      } catch: { error, send in
        await send(.response(.loginFailed(message: Self.message(forLoginFailure: error))))
      }
      .cancellable(id: LoginID(), cancelInFlight: true)
    case .view(.logoutTapped):
      guard case .signedIn = state.status else { return .none }
      state.status = .signingOut
      state.errorMessage = nil
      return .run { [client] send in
        do {
          try await client.logout()
          await send(.response(.loggedOut(warning: nil)))
        } catch {
          await send(.response(.loggedOut(warning: "\(error)")))
        }
      }
    case .internal(.sessionChanged(let session)):
      return follow(session, &state)
    case .response(.loggedIn(let user)):
      // Not waiting any more (the manager's news came first, or the user signed out): nothing to do.
      guard state.status == .signingIn else { return .none }
      return signedIn(user, &state)
    case .response(.loginFailed(let message)):
      guard state.status == .signingIn else { return .none }
      state.status = .signedOut
      state.errorMessage = message
      return .none
    case .response(.loggedOut(let warning)):
      switch state.status {
      case .signingOut:
        state.errorMessage = warning
        return signedOut(&state)
      case .signedOut:
        if let warning { state.errorMessage = warning }
        return .none
      case .signingIn, .signedIn:
        return .none  // signed in again since: this sign-out's news is old
      }
    case .delegate:
      return .none
    }
  }

  private func login(_ state: inout State) -> Effect<Action> {
    guard state.status == .signedOut else { return .none }
    let email = state.email.trimmingCharacters(in: .whitespacesAndNewlines)
    state.emailError = Validation.emailError(email)
    state.passwordError = Validation.passwordError(state.password)
    guard state.emailError == nil, state.passwordError == nil else { return .none }
    state.status = .signingIn
    state.errorMessage = nil
    return .run { [client, password = state.password] send in
      let user = try await client.login(email, password)
      await send(.response(.loggedIn(user)))
    } catch: { error, send in
      await send(.response(.loginFailed(message: Self.message(forLoginFailure: error))))
    }
    .cancellable(id: LoginID(), cancelInFlight: true)
  }

  private func follow(_ session: SessionState, _ state: inout State) -> Effect<Action> {
    switch session {
    case .loggedIn(let user):
      // Signing out: a profile change published meanwhile is not a new sign-in; the sign-out settles it.
      if state.status == .signingOut { return .none }
      return signedIn(user, &state)
    case .loggedOut:
      // A sign-in on its way settles with its own response; the state published before it means nothing.
      guard state.status != .signingIn else { return .none }
      return signedOut(&state)
    case .expired:
      // Signing out already: the user asked for the end, and gets it.
      if state.status == .signingOut { return signedOut(&state) }
      guard state.user != nil else { return .none }
      state.status = .signedOut
      state.errorMessage = Self.expiredMessage
      return .send(.delegate(.sessionExpired))
    }
  }

  private func signedIn(_ user: SessionUser, _ state: inout State) -> Effect<Action> {
    guard state.status != .signedIn(user) else { return .none }
    let previous = state.user
    state.status = .signedIn(user)
    // The same user with a new profile: the session goes on.
    if previous?.id == user.id { return .send(.delegate(.userChanged(user))) }
    state.password = ""
    state.errorMessage = nil
    let signedIn = Effect<Action>.merge(.cancel(id: LoginID()), .send(.delegate(.signedIn(user))))
    // Another user replaced the one signed in: the parent resets what belonged to the first.
    return previous == nil ? signedIn : .merge(.send(.delegate(.signedOut)), signedIn)
  }

  private func signedOut(_ state: inout State) -> Effect<Action> {
    guard state.status != .signedOut else { return .none }
    state.status = .signedOut
    return .send(.delegate(.signedOut))
  }

  static func message(forLoginFailure error: any Error) -> String {
    guard let error = error as? SessionError else { return "Cannot sign in: \(error)" }
    switch error.kind {
    case .loginRefused: return "The email or password is wrong."
    case .providerTokenRefused:
      switch error.providerRefusal {
      case .expired?: return "The sign-in took too long and expired. Try again."
      case .nonceMismatch?: return "The sign-in could not be matched to this request. Try again."
      default: return "The sign-in could not be verified. Try again, or sign in with your email."
      }
    case .requestFailed: return "Cannot reach the sign-in server. Check the connection and try again."
    case .storage: return "Cannot sign in: this device cannot keep the session's keys. \(error.description)"
    default: return error.description
    }
  }
}
