import Foundation
import Networking
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A small router for the tests.
enum TestRouter: Endpoint {
  case user(id: String)
  case search(nickname: String)
  case create(name: String)
  case unencodable

  var baseURL: URL { URL(string: "https://api.example.com/base/")! }

  var path: EndpointPath {
    switch self {
    case .user(let id): ["v3", "users", id]
    case .search, .create, .unencodable: "/v3/users"
    }
  }

  var method: HTTPMethod {
    switch self {
    case .user, .search: .get
    case .create, .unencodable: .post
    }
  }

  var headers: [String: String] { ["Api-Token": "secret"] }

  var query: [QueryItem] {
    if case .search(let nickname) = self { return [QueryItem("nickname", nickname), QueryItem("limit", "100")] }
    return []
  }

  var body: HTTPBody {
    switch self {
    case .create(let name): .json(["name": name])
    case .unencodable: .json(Double.nan)
    default: .empty
    }
  }
}

/// REQUIREMENTS A1, U13: endpoints become correct `URLRequest`s; reserved characters never change a URL's meaning.
@Suite("Endpoint")
struct EndpointTests {
  @Test("Path segments are percent-encoded one by one; the base URL's path prefix and trailing slash are kept right")
  func pathEncoding() throws {
    let request = try TestRouter.user(id: "ana/maría ?#&+").urlRequest()
    #expect(request.url?.absoluteString == "https://api.example.com/base/v3/users/ana%2Fmar%C3%ADa%20%3F%23%26%2B")
    #expect(request.httpMethod == "GET")
    #expect(request.value(forHTTPHeaderField: "Api-Token") == "secret")
    #expect(request.httpBody == nil)
  }

  @Test("Of all 128 ASCII characters only letters, digits and '-._~' stay as they are; every other byte is %XX")
  func everyASCIICharacter() {
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
    for value in UInt8(0)..<128 {
      let scalar = Unicode.Scalar(value)
      let expected =
        unreserved.contains(scalar)
        ? String(scalar) : "%" + (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true)
      #expect(EndpointPath([String(scalar)]).encoded == "/" + expected, "byte \(value)")
    }
    #expect(EndpointPath(["id-1", "ü"]).encoded == "/id-1/%C3%BC")
    #expect(EndpointPath([]).encoded == "/")
  }

  @Test("Query values are percent-encoded, so '+', '&' and '=' stay part of the value")
  func queryEncoding() throws {
    let request = try TestRouter.search(nickname: "a+b&c=d e").urlRequest()
    #expect(request.url?.query == "nickname=a%2Bb%26c%3Dd%20e&limit=100")
  }

  @Test("A JSON body is encoded with its Content-Type; one that cannot be encoded is an invalidRequest error")
  func body() throws {
    let request = try TestRouter.create(name: "Ann").urlRequest()
    #expect(request.httpMethod == "POST")
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(request.httpBody == Data(#"{"name":"Ann"}"#.utf8))

    let error = #expect(throws: NetworkError.self) { _ = try TestRouter.unencodable.urlRequest() }
    #expect(error?.kind == .invalidRequest)
  }

  @Test("GET, HEAD, PUT, DELETE and OPTIONS are idempotent; POST and PATCH are not")
  func idempotency() {
    let idempotent = [HTTPMethod.get, .head, .put, .delete, .options].filter(\.isIdempotent)
    #expect(idempotent == [.get, .head, .put, .delete, .options])
    #expect([HTTPMethod.post, .patch].filter(\.isIdempotent).isEmpty)
  }
}
