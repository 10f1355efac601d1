import Domain
import Foundation
import Networking
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The endpoint for an image URL: its parts, and the request it sends. Pure logic that needs no server.
@Suite("ImagesRouter")
struct ImagesRouterTests {
  /// An endpoint made only of the router's parts, built back by the `Endpoint` rules.
  struct Rebuilt: Endpoint {
    let baseURL: URL
    let path: EndpointPath
    let query: [QueryItem]
    var method: HTTPMethod { .get }
  }

  @Test(
    "A URL splits into base, path and query that build back to the same URL",
    arguments: [
      "http://127.0.0.1:8080/images/ana.png?size=64",
      "https://cdn.example.com/avatars/a%20b/c.png",
      "https://cdn.example.com/images/x.png?size=64&format=png",
      "https://cdn.example.com/u/%C3%A9l%C3%A8ve.png?name=%C3%A9",
      "http://localhost:9000/a/b/c/",
    ])
  func roundTrip(_ text: String) throws {
    let url = try #require(URL(string: text))
    let router = try ImagesRouter(url: url)
    let rebuilt = try Rebuilt(baseURL: router.baseURL, path: router.path, query: router.query).urlRequest()
    #expect(rebuilt.url?.absoluteString == text)
  }

  @Test("The parts of a Sandbox image URL")
  func parts() throws {
    let router = try ImagesRouter(url: try #require(URL(string: "http://127.0.0.1:8080/images/ana.png?size=64")))
    #expect(router.baseURL.absoluteString == "http://127.0.0.1:8080")
    #expect(router.path == ["images", "ana.png"])
    #expect(router.query == [QueryItem("size", "64")])
    #expect(router.method == .get)
  }

  @Test("The request goes to the URL exactly as given, with If-None-Match only when revalidating")
  func request() throws {
    // A comma and a plus that the Endpoint rules would percent-encode, as a signed CDN URL may have them.
    let url = try #require(URL(string: "https://cdn.example.com/w_64,h_64/a.png?sig=ab+cd"))
    let plain = try ImagesRouter(url: url).urlRequest()
    let conditional = try ImagesRouter(url: url, ifNoneMatch: "\"v1\"").urlRequest()

    #expect(plain.url == url)
    #expect(plain.httpMethod == "GET")
    #expect(plain.value(forHTTPHeaderField: "If-None-Match") == nil)
    #expect(conditional.url == url)
    #expect(conditional.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
  }

  @Test(
    "A URL that cannot name an image is refused", arguments: ["mailto:ana@example.com", "data:image/png;base64,AA=="])
  func invalid(_ text: String) throws {
    let url = try #require(URL(string: text))
    let error = #expect(throws: ImageLoaderError.self) { try ImagesRouter(url: url) }
    #expect(error?.kind == .invalidURL)
  }
}
