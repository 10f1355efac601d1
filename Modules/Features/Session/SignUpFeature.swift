import Domain
import Foundation

/// Signing up by email: a form checked before anything is sent (an email address, a password of 8 to 256
/// characters, a nickname of at most 64, or none for the email's local part), then a new account, signed in
/// (REQUIREMENTS F1–F3, A4).
///
/// - ``View/signUpTapped`` checks the form: a field that cannot be sent gets its error (``State/emailError``,
///   ``State/passwordError``, ``State/nicknameError``) and nothing is sent. While a sign-up runs, taps are ignored.
/// - An email that has an account (`E409`), a network failure, or any other refusal shows as ``State/failure``; the
///   form keeps what was typed.
/// - Signed up, the parent hears ``Delegate/signedUp(_:)``; the session manager publishes the new session too, so
///   ``SessionFeature`` follows it as any sign-in. In `AppFeature` that news usually comes first and closes the form
///   (its effects cancelled), so the app acts on the session's `signedIn`, not on this delegate.
///
/// ```swift
/// import Domain
///
/// @MainActor
/// func signUp(sessions: SessionManager) -> Store<SignUpFeature.State, SignUpFeature.Action> {
///   let store = Store(initialState: SignUpFeature.State(), reducer: SignUpFeature(client: .live(sessions)))
///   store.send(.view(.emailChanged("new@keel.dev")))
///   store.send(.view(.passwordChanged("a long password")))
///   store.send(.view(.signUpTapped))
///   return store
/// }
/// ```
public struct SignUpFeature: Reducer {
  /// What can happen on the form, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Never, Response, Delegate>

  /// What the form shows.
  public struct State: Equatable, Sendable {
    /// The email typed.
    public var email = ""
    /// The password typed.
    public var password = ""
    /// The nickname typed; empty for the email's local part.
    public var nickname = ""
    /// Why the email cannot be sent, after an attempt, or `nil`.
    public var emailError: String?
    /// Why the password cannot be sent, after an attempt, or `nil`.
    public var passwordError: String?
    /// Why the nickname cannot be sent, after an attempt, or `nil`.
    public var nicknameError: String?
    /// Whether a sign-up is on its way.
    public var isSigningUp = false
    /// Why the last sign-up did not happen, or `nil`.
    public var failure: ScreenFailure?

    /// An empty form.
    public init() {}
  }

  /// What the user does on the form.
  public enum View: Equatable, Sendable {
    /// The email changed.
    case emailChanged(String)
    /// The password changed.
    case passwordChanged(String)
    /// The nickname changed.
    case nicknameChanged(String)
    /// Sign up with the form.
    case signUpTapped
  }

  /// The outcome of a sign-up.
  public enum Response: Equatable, Sendable {
    /// Signed up, and in, as this user.
    case signedUp(SessionUser)
    /// Not signed up.
    case failed(ScreenFailure)
  }

  /// What the form tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The account was made and is signed in.
    case signedUp(SessionUser)
  }

  private let client: SessionClient

  /// The form on `client`.
  public init(client: SessionClient) {
    self.client = client
  }

  /// Applies `action` to the form.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.emailChanged(let email)):
      state.email = email
      state.emailError = nil
      return .none
    case .view(.passwordChanged(let password)):
      state.password = password
      state.passwordError = nil
      return .none
    case .view(.nicknameChanged(let nickname)):
      state.nickname = nickname
      state.nicknameError = nil
      return .none
    case .view(.signUpTapped):
      guard !state.isSigningUp else { return .none }
      let email = state.email.trimmingCharacters(in: .whitespacesAndNewlines)
      let nickname = state.nickname.trimmingCharacters(in: .whitespacesAndNewlines)
      state.emailError = SessionFeature.Validation.emailError(email)
      state.passwordError =
        (8...256).contains(state.password.count) ? nil : "A password has 8 to 256 characters."
      state.nicknameError = nickname.count <= 64 ? nil : "A nickname has at most 64 characters."
      guard state.emailError == nil, state.passwordError == nil, state.nicknameError == nil else { return .none }
      state.isSigningUp = true
      state.failure = nil
      return Features.request(
        "sign up", client,
        response: { [password = state.password] client in
          .response(.signedUp(try await client.signUp(email, password, nickname.isEmpty ? nil : nickname)))
        }, failed: { .response(.failed($0)) })
    case .response(.signedUp(let user)):
      state.isSigningUp = false
      state.password = ""
      return .send(.delegate(.signedUp(user)))
    case .response(.failed(let failure)):
      state.isSigningUp = false
      state.failure = failure
      return .none
    case .delegate:
      return .none
    }
  }
}
