import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The request for one image: a `GET` of its URL, with `If-None-Match` when a cached copy is being revalidated.
///
/// Image URLs come whole (from a user's profile, a message), so the router splits one into the parts an `Endpoint`
/// has: ``baseURL`` (scheme, host and port), ``path`` (the decoded segments) and ``query`` (the decoded items). Built
/// back by the `Endpoint` rules, the parts give the same URL for the URLs image servers hand out
/// (`https://cdn.example.com/images/a%20b.png?size=64`). The request itself is sent to ``url`` exactly as given,
/// though: a signed CDN URL stays valid even where Keel would percent-encode a character (`,` `+` `;`) that the
/// signer did not.
///
/// ```swift
/// import Foundation
/// import Networking
///
/// let avatarURL = URL(string: "https://cdn.example.com/avatars/alice.png")!
/// var request = APIRequest.data(try ImagesRouter(url: avatarURL, ifNoneMatch: "\"33a64df5\""))  // the cached ETag
/// request.acceptableStatus = 200...304  // 304 Not Modified: the cached copy is still current
/// let response = try await HTTPClient().response(for: request)
/// ```
public struct ImagesRouter: Endpoint {
  /// The image's URL, sent as it is.
  public let url: URL
  /// The ETag of the cached copy being revalidated, sent as `If-None-Match`; `nil` for a plain fetch.
  public let ifNoneMatch: String?
  /// The scheme, host and port of ``url``.
  public let baseURL: URL
  /// The path of ``url``, one decoded segment per `/`.
  public let path: EndpointPath
  /// The query of ``url``, decoded, in order; an item without a value has an empty one.
  public let query: [QueryItem]

  /// The request for the image at `url`.
  ///
  /// - Parameters:
  ///   - url: An absolute `http` or `https` URL with a host.
  ///   - ifNoneMatch: The ETag of a cached copy, to be answered `304 Not Modified` if it is still current.
  /// - Throws: ``ImageLoaderError`` of kind `ImageLoaderError.Kind.invalidURL` for any other URL.
  public init(url: URL, ifNoneMatch: String? = nil) throws {
    let components = try Self.validated(url)
    var base = URLComponents()
    base.scheme = components.scheme?.lowercased()
    base.percentEncodedHost = components.percentEncodedHost
    base.port = components.port
    guard let baseURL = base.url else { throw ImageLoaderError.invalidURL(url, "its host is not valid") }
    var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
    if segments.first?.isEmpty == true { segments.removeFirst() }
    self.url = url
    self.ifNoneMatch = ifNoneMatch
    self.baseURL = baseURL
    path = EndpointPath(segments.map { $0.removingPercentEncoding ?? String($0) })
    query = (components.queryItems ?? []).map { QueryItem($0.name, $0.value ?? "") }
  }

  /// Checks that `url` can name an image: an `http` or `https` scheme and a host.
  ///
  /// - Throws: ``ImageLoaderError`` of kind `ImageLoaderError.Kind.invalidURL`.
  @discardableResult
  static func validated(_ url: URL) throws -> URLComponents {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      throw ImageLoaderError.invalidURL(url, "it is not a valid URL")
    }
    guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw ImageLoaderError.invalidURL(url, "only http and https URLs are loaded")
    }
    guard let host = components.host, !host.isEmpty else {
      throw ImageLoaderError.invalidURL(url, "it has no host")
    }
    return components
  }

  /// `GET`.
  public var method: HTTPMethod { .get }

  /// `If-None-Match` when revalidating; none otherwise.
  public var headers: [String: String] { ifNoneMatch.map { ["If-None-Match": $0] } ?? [:] }

  /// A `GET` of ``url`` as given, with ``headers``, that no URL cache answers.
  public func urlRequest() throws -> URLRequest {
    // The loader's cache is the only one: a URL cache in between would answer for the server, or turn its 304 into
    // a 200.
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
    request.httpMethod = method.rawValue
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }
}
