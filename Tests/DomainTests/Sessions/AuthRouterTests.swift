import Foundation
import Networking
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The auth API's requests, and values that never show a secret: pure logic that needs no server.
@Suite("AuthRouter and Credentials")
struct AuthRouterTests {
  let baseURL = URL(string: "http://127.0.0.1:8080")!

  @Test("Login posts camelCase JSON to /v1/auth/login; its description shows no password")
  func login() throws {
    let router = AuthRouter(.login(email: "demo@keel.dev", password: "s3cret"), baseURL: baseURL)
    let request = try router.urlRequest()

    #expect(request.httpMethod == "POST")
    #expect(request.url?.absoluteString == "http://127.0.0.1:8080/v1/auth/login")
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    let body = try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: String]
    #expect(body == ["email": "demo@keel.dev", "password": "s3cret"])
    #expect(router.description == "POST /v1/auth/login")
  }

  @Test("Refresh sends the RefreshToken header; logout its own Bearer token; /v1/me is a GET")
  func otherRoutes() throws {
    let refresh = try AuthRouter(.refresh(refreshToken: "r1"), baseURL: baseURL).urlRequest()
    #expect(refresh.httpMethod == "POST")
    #expect(refresh.url?.path == "/v1/auth/refresh")
    #expect(refresh.value(forHTTPHeaderField: "RefreshToken") == "r1")
    #expect(refresh.httpBody == nil)

    let logout = try AuthRouter(.logout(accessToken: "a1"), baseURL: baseURL).urlRequest()
    #expect(logout.httpMethod == "POST")
    #expect(logout.url?.path == "/v1/auth/logout")
    #expect(logout.value(forHTTPHeaderField: "Authorization") == "Bearer a1")

    let me = try AuthRouter(.me, baseURL: baseURL).urlRequest()
    #expect(me.httpMethod == "GET")
    #expect(me.url?.path == "/v1/me")
    #expect(me.value(forHTTPHeaderField: "Authorization") == nil)
  }

  @Test("Credentials round-trip through JSON, and their description masks both tokens")
  func credentials() throws {
    let credentials = Credentials(
      accessToken: "access-secret", refreshToken: "refresh-secret", issuedAt: Date(timeIntervalSince1970: 1_000),
      expiresAt: Date(timeIntervalSince1970: 1_060), user: demoUser)

    let decoded = try JSONDecoder().decode(Credentials.self, from: JSONEncoder().encode(credentials))

    #expect(decoded == credentials)
    for text in [credentials.description, credentials.debugDescription, "\(credentials)"] {
      #expect(!text.contains("secret"))
      #expect(text.contains("user-demo"))
    }
  }
}
