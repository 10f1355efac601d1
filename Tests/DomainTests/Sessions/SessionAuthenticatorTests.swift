import Foundation
import Networking
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The chat backend's rules for `TokenRefreshInterceptor`: which failures a refresh cures, which routes carry the
/// token, and when a token is refreshed ahead of use. These are pure rules that need no server; the refresh itself
/// runs against the Sandbox in `SessionManagerIntegrationTests`, whose refreshed session keeps its refresh token.
@Suite("SessionAuthenticator")
struct SessionAuthenticatorTests {
  let now = ManualNow()
  let baseURL = FakeAuthBackend.baseURL

  private var authenticator: SessionAuthenticator {
    SessionAuthenticator(baseURL: baseURL, auth: HTTPClient(transport: FakeAuthBackend()), now: now.now) { _ in }
  }

  private func failure(code: String?, status: Int = 401) -> NetworkError {
    var error = NetworkError(code == nil ? .status : .server, "A test failure.")
    error.statusCode = status
    error.serverError = code.map { ServerError(code: $0, message: "", status: status) }
    return error
  }

  private func credentials(lifetime: TimeInterval) -> Credentials {
    Credentials(accessToken: "a", refreshToken: "r", expiresIn: lifetime, user: demoUser, now: now.now())
  }

  @Test(
    "Only E05 is cured by a refresh",
    arguments: [("E05", true), ("E02", false), ("E03", false), ("E06", false), ("400401", false)])
  func onlyExpiryIsRefreshed(code: String, refreshes: Bool) {
    #expect(authenticator.isAuthenticationFailure(failure(code: code)) == refreshes)
  }

  @Test("A 401 without a server error is not an expiry")
  func bare401IsNotExpiry() {
    #expect(!authenticator.isAuthenticationFailure(failure(code: nil)))
  }

  @Test(
    "Login, refresh and logout go without the session's token; the backend's other endpoints carry it; another server never gets it"
  )
  func whichRoutesCarryTheToken() {
    let authenticator = authenticator
    #expect(!authenticator.requiresCredential(AuthRouter(.login(email: "e", password: "p"), baseURL: baseURL)))
    #expect(!authenticator.requiresCredential(AuthRouter(.refresh(refreshToken: "r"), baseURL: baseURL)))
    #expect(!authenticator.requiresCredential(AuthRouter(.logout(accessToken: "a"), baseURL: baseURL)))
    #expect(authenticator.requiresCredential(AuthRouter(.me, baseURL: baseURL)))
    #expect(authenticator.requiresCredential(OtherEndpoint()))
    #expect(authenticator.requiresCredential(OtherEndpoint(baseURL: URL(string: "HTTPS://chat.example.test:443/api")!)))
    for other in ["https://elsewhere.example", "http://chat.example.test", "https://chat.example.test:8443"] {
      #expect(!authenticator.requiresCredential(OtherEndpoint(baseURL: URL(string: other)!)), "\(other) gets no token")
    }
  }

  @Test(
    "A token is refreshed 30 s before expiry, or a quarter of its lifetime when that is shorter",
    arguments: [(60.0, 44.9, false), (60, 45, true), (3_600, 3_569, false), (3_600, 3_570, true), (4, 2.9, false)])
  func refreshesAheadOfExpiry(lifetime: TimeInterval, age: TimeInterval, refreshes: Bool) {
    let credentials = credentials(lifetime: lifetime)
    now.advance(by: age)
    #expect(authenticator.requiresRefresh(credentials) == refreshes)
  }

  @Test("The access token goes in a Bearer header, which tells which credential a request carried")
  func bearerHeader() throws {
    let authenticator = authenticator
    let credentials = credentials(lifetime: 60)
    var request = try AuthRouter(.me, baseURL: baseURL).urlRequest()

    authenticator.apply(credentials, to: &request)

    #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer a")
    #expect(authenticator.isRequest(request, authenticatedWith: credentials))
    var newer = credentials
    newer.accessToken = "b"
    #expect(!authenticator.isRequest(request, authenticatedWith: newer))
  }

  @Test("A refresh keeps the refresh token and the user, and hands the new credential over before returning")
  func refreshHandsOver() async throws {
    let backend = FakeAuthBackend()
    let auth = HTTPClient(transport: backend)
    _ = try await auth.send(
      .data(AuthRouter(.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password), baseURL: baseURL)))
    let handed = Recorder<Credentials>()
    let authenticator = SessionAuthenticator(baseURL: baseURL, auth: auth, now: now.now) { handed.record($0) }
    let old = Credentials(
      accessToken: "access-1", refreshToken: "refresh-2", expiresIn: 60, user: demoUser, now: now.now())

    let fresh = try await authenticator.refresh(old)

    #expect(fresh.accessToken == "access-3")
    #expect(fresh.refreshToken == "refresh-2")
    #expect(fresh.user == demoUser)
    #expect(handed.elements == [fresh])
    #expect(backend.requests.last?.value(forHTTPHeaderField: "RefreshToken") == "refresh-2")
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == nil)
  }

  private struct OtherEndpoint: Endpoint {
    var baseURL = FakeAuthBackend.baseURL
    var path: EndpointPath { "/v1/channels" }
    var method: HTTPMethod { .get }
  }
}
