import Foundation
import Networking

/// The chat backend's auth API (SandboxAPI §2): sign in, refresh, sign out and the signed-in user, as endpoints
/// with camelCase JSON on `/v1` (REQUIREMENTS A1).
///
/// ```swift
/// import Foundation
///
/// let baseURL = URL(string: "https://chat.example.com")!
/// let login = AuthRouter(.login(email: "demo@keel.dev", password: "demo-password"), baseURL: baseURL)
/// let me = AuthRouter(.me, baseURL: baseURL)
/// print(login, me)  // POST /v1/auth/login GET /v1/me: never the password
/// ```
public struct AuthRouter: Endpoint, CustomStringConvertible {
  /// One call of the auth API.
  public enum Route: Sendable {
    /// `POST /v1/auth/login` with `{"email","password"}`.
    case login(email: String, password: String)
    /// `POST /v1/auth/refresh` with the `RefreshToken` header: a new access token for the same refresh token.
    case refresh(refreshToken: String)
    /// `POST /v1/auth/logout` with `Authorization: Bearer <accessToken>`: the server revokes the session's refresh
    /// token. The token is part of the route, not put on by a session's client, because signing out runs after the
    /// session was wiped on this device.
    case logout(accessToken: String)
    /// `GET /v1/me`: the signed-in user, authenticated by the session's client.
    case me
    /// `POST /v1/auth/signup` with `{"email","password","nickname"}`: a new account, signed in.
    case signUp(email: String, password: String, nickname: String?)
    /// `POST /v1/auth/provider` with `{"provider","idToken","nonce"?}`: a provider's identity token exchanged for the
    /// backend's own tokens.
    case providerSignIn(provider: IdentityProvider, idToken: String, nonce: String?)
    /// `PATCH /v1/me` with `{"nickname"}`, authenticated by the session's client.
    case updateProfile(nickname: String)
    /// `POST /v1/me/image` with a multipart `image` field (in memory, or a file to send with progress),
    /// authenticated by the session's client.
    case updateProfileImage(HTTPBody)
  }

  /// Which of the backend's calls this is.
  public let route: Route
  /// The backend's scheme, host and any path prefix.
  public let baseURL: URL

  /// An endpoint for `route` on the backend at `baseURL`.
  public init(_ route: Route, baseURL: URL) {
    self.route = route
    self.baseURL = baseURL
  }

  /// The route's path below `/v1`.
  public var path: EndpointPath {
    switch route {
    case .login: "/v1/auth/login"
    case .refresh: "/v1/auth/refresh"
    case .logout: "/v1/auth/logout"
    case .me, .updateProfile: "/v1/me"
    case .updateProfileImage: "/v1/me/image"
    case .signUp: "/v1/auth/signup"
    case .providerSignIn: "/v1/auth/provider"
    }
  }

  /// `GET` for ``Route/me``, `PATCH` for ``Route/updateProfile(nickname:)``, `POST` for the others.
  public var method: HTTPMethod {
    switch route {
    case .me: .get
    case .updateProfile: .patch
    default: .post
    }
  }

  /// The token a route carries itself: `RefreshToken` for ``Route/refresh(refreshToken:)``, `Authorization` for
  /// ``Route/logout(accessToken:)``.
  public var headers: [String: String] {
    switch route {
    case .refresh(let refreshToken): ["RefreshToken": refreshToken]
    case .logout(let accessToken): ["Authorization": "Bearer \(accessToken)"]
    case .login, .me, .signUp, .providerSignIn, .updateProfile, .updateProfileImage: [:]
    }
  }

  /// `{"email","password"}` for ``Route/login(email:password:)``, with `nickname` for a sign-up; `{"nickname"}` for a
  /// profile; the multipart form for a profile image; none for the others.
  public var body: HTTPBody {
    switch route {
    case .login(let email, let password): .json(["email": email, "password": password])
    case .signUp(let email, let password, let nickname):
      .json(["email": email, "password": password].merging(nickname.map { ["nickname": $0] } ?? [:]) { $1 })
    case .providerSignIn(let provider, let idToken, let nonce):
      .json(["provider": provider.rawValue, "idToken": idToken].merging(nonce.map { ["nonce": $0] } ?? [:]) { $1 })
    case .updateProfile(let nickname): .json(["nickname": nickname])
    case .updateProfileImage(let body): body
    default: .empty
    }
  }

  /// Whether a session's client puts its access token on this call: ``Route/me`` and the profile's changes.
  /// Sign-in, sign-up and refresh must go without one, and sign-out carries its own.
  var requiresSessionCredential: Bool {
    switch route {
    case .me, .updateProfile, .updateProfileImage: true
    default: false
    }
  }

  /// A profile image may take 8 MiB: it gets two minutes, not the transport's default.
  public var timeout: Duration? {
    if case .updateProfileImage = route { return .seconds(120) }
    return nil
  }

  /// The method and path, never the password or a token, for example `POST /v1/auth/login`.
  public var description: String { "\(method) \(path)" }
}

/// `POST /v1/auth/login`'s answer.
struct LoginResponse: Decodable, Sendable {
  let accessToken: String
  let refreshToken: String
  /// Seconds.
  let expiresIn: Double
  let user: SessionUser
}

/// `POST /v1/auth/refresh`'s answer; the refresh token does not change.
struct RefreshResponse: Decodable, Sendable {
  let accessToken: String
  /// Seconds.
  let expiresIn: Double
}
