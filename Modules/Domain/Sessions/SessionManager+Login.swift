import Foundation
import KeelConcurrency
import KeelErrors
import Logging
import Networking
import Persistence

extension SessionManager {
  /// Signs in and starts a session, replacing any current one (which is not revoked: ``logout()`` first for that).
  ///
  /// The email is trimmed of surrounding whitespace; the password is sent as it is.
  ///
  /// - Returns: The signed-in user, also published as ``SessionState/loggedIn(_:)``.
  /// - Throws: ``SessionError``: `SessionError.Kind.invalidInput` for an empty email or password, before anything
  ///   is sent; `SessionError.Kind.loginRefused` when the server refuses them (`E03`);
  ///   `SessionError.Kind.requestFailed` for any other failure to sign in; `SessionError.Kind.storage` when the
  ///   secure store cannot keep the tokens; `CancellationError` when the calling task is cancelled. The state does not
  ///   change on failure.
  @discardableResult
  public func login(email: String, password: String) async throws -> SessionUser {
    let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !email.isEmpty else { throw SessionError(.invalidInput, "Cannot sign in: the email is empty.") }
    guard !password.isEmpty else { throw SessionError(.invalidInput, "Cannot sign in: the password is empty.") }
    let baseURL = try configuredBackend(for: "sign in")
    let response: LoginResponse
    do {
      response = try await auth.send(.json(AuthRouter(.login(email: email, password: password), baseURL: baseURL)))
    } catch let error as NetworkError {
      throw Self.loginFailure(RequestFailure(error))
    }
    let user = try startSession(response)
    logger.info("Signed in as \(user.id).")
    return user
  }

  /// Creates an account and signs in with it, replacing any current session (as ``login(email:password:)``).
  ///
  /// - Parameters:
  ///   - email: At most 254 characters with an `@`; trimmed.
  ///   - password: 8 to 256 characters, sent as it is.
  ///   - nickname: 1 to 64 characters; the server uses the email's local part when `nil`.
  /// - Returns: The new, signed-in user.
  /// - Throws: ``SessionError``: `SessionError.Kind.invalidInput` for input the server would refuse, before anything
  ///   is sent; `SessionError.Kind.requestFailed` when the server refuses it (`E409`: the email has an account) or
  ///   the request fails; `SessionError.Kind.storage` as for a sign-in.
  @discardableResult
  public func signUp(email: String, password: String, nickname: String? = nil) async throws -> SessionUser {
    let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
    guard email.contains("@"), email.count <= 254 else {
      throw SessionError(.invalidInput, "Cannot sign up: an email has an @ and at most 254 characters.")
    }
    guard (8...256).contains(password.count) else {
      throw SessionError(.invalidInput, "Cannot sign up: a password has 8 to 256 characters.")
    }
    if let nickname, !(1...64).contains(nickname.count) {
      throw SessionError(.invalidInput, "Cannot sign up: a nickname has 1 to 64 characters.")
    }
    let baseURL = try configuredBackend(for: "sign up")
    let signUp = AuthRouter(.signUp(email: email, password: password, nickname: nickname), baseURL: baseURL)
    let response: LoginResponse
    do {
      response = try await auth.send(.json(signUp))
    } catch let error as NetworkError {
      let failure = RequestFailure(error)
      throw SessionError(.requestFailed, "Cannot sign up: \(failure)", requestFailure: failure)
    }
    let user = try startSession(response)
    logger.info("Signed up and in as \(user.id).")
    return user
  }

  private static func loginFailure(_ failure: RequestFailure) -> SessionError {
    if failure.serverCode == "E03" {
      return SessionError(
        .loginRefused, "Cannot sign in: the server refused the email and password (\(failure.description.clause)).",
        requestFailure: failure)
    }
    return SessionError(.requestFailed, "Cannot sign in: \(failure)", requestFailure: failure)
  }

  /// Starts the session a sign-in or sign-up answered with, and returns its user.
  func startSession(_ response: LoginResponse) throws -> SessionUser {
    let fresh = Credentials(
      accessToken: response.accessToken, refreshToken: response.refreshToken, expiresIn: response.expiresIn,
      user: response.user, now: now())
    try start(fresh)
    return fresh.user
  }

  /// Keeps `fresh` in the secure store, then makes it the session; nothing changes if the store fails.
  private func start(_ fresh: Credentials) throws {
    try session.withLock { current in
      do {
        try secureStore.set(fresh, forKey: Self.storageKey)
      } catch {
        throw SessionError(
          .storage, "Signed in, but the secure store cannot keep the tokens, so no session was started: \(error)",
          underlying: error)
      }
      current = fresh
      interceptor.setCredential(fresh)
      broadcast.publish(.loggedIn(fresh.user))
    }
  }
}
