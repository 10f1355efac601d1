import Foundation
import Logging
import Networking

/// An identity provider an app signs in with: the app gets the user's identity token from the provider's SDK (Sign in
/// with Apple's `ASAuthorizationAppleIDCredential.identityToken`, Kakao's OpenID Connect `idToken`), and the session
/// manager exchanges it with the backend for the backend's own tokens.
public enum IdentityProvider: String, CaseIterable, Hashable, Sendable {
  /// Sign in with Apple.
  case apple
  /// Kakao Login (OpenID Connect).
  case kakao
}

extension SessionManager {
  /// Signs in with a provider's identity token (`POST /v1/auth/provider`) and starts a session, replacing any current
  /// one, as ``login(email:password:)`` does. The backend verifies the token with the provider's published keys; the
  /// first sign-in of a provider's user makes their account, a later one finds it.
  ///
  /// ```swift
  /// import Foundation
  ///
  /// func signInWithApple(_ sessions: SessionManager, identityToken: Data, rawNonce: String) async throws {
  ///   // identityToken and rawNonce come from Sign in with Apple: the app asked with the nonce's SHA-256.
  ///   let token = String(decoding: identityToken, as: UTF8.self)
  ///   let user = try await sessions.signIn(with: .apple, idToken: token, nonce: rawNonce)
  ///   print("Signed in as \(user.nickname)")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - provider: Who issued the token.
  ///   - idToken: The provider's identity token, a JWT; sent as it is and never logged.
  ///   - nonce: The nonce the app made for this sign-in (for Apple, the one whose SHA-256 it asked with), which the
  ///     token must carry; `nil` when the app asked without one.
  /// - Returns: The signed-in user, also published as ``SessionState/loggedIn(_:)``.
  /// - Throws: ``SessionError``: `SessionError.Kind.invalidInput` for a token that is not a JWT (or over 16 KiB) or
  ///   an empty nonce, before anything is sent; `SessionError.Kind.providerTokenRefused` when the backend refuses the
  ///   token, with ``SessionError/providerRefusal`` saying why (another audience, expired, a bad signature, a nonce
  ///   that does not match); `SessionError.Kind.requestFailed` for any other failure; `SessionError.Kind.storage` as
  ///   for a sign-in.
  @discardableResult
  public func signIn(with provider: IdentityProvider, idToken: String, nonce: String? = nil) async throws
    -> SessionUser
  {
    guard idToken.utf8.count <= 16_384, idToken.split(separator: ".", omittingEmptySubsequences: false).count == 3,
      !idToken.contains(where: \.isWhitespace)
    else {
      throw SessionError(.invalidInput, "Cannot sign in with \(provider.rawValue): the identity token is not a JWT.")
    }
    if let nonce, nonce.isEmpty || nonce.utf8.count > 1_024 {
      throw SessionError(.invalidInput, "Cannot sign in with \(provider.rawValue): a nonce has 1 to 1,024 bytes.")
    }
    let baseURL = try configuredBackend(for: "sign in with \(provider.rawValue)")
    let route = AuthRouter.Route.providerSignIn(provider: provider, idToken: idToken, nonce: nonce)
    let response: LoginResponse
    do {
      response = try await auth.send(.json(AuthRouter(route, baseURL: baseURL)))
    } catch let error as NetworkError {
      let failure = RequestFailure(error)
      if let refusal = ProviderTokenRefusal(serverCode: failure.serverCode) {
        var refused = SessionError(
          .providerTokenRefused,
          "Cannot sign in with \(provider.rawValue): the server refused the identity token (\(failure.description.clause)).",
          requestFailure: failure)
        refused.providerRefusal = refusal
        throw refused
      }
      throw SessionError(
        .requestFailed, "Cannot sign in with \(provider.rawValue): \(failure)", requestFailure: failure)
    }
    let user = try startSession(response)
    logger.info("Signed in with \(provider.rawValue) as \(user.id).")
    return user
  }
}
