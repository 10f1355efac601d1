import Foundation
import Networking

/// The application a ``UserManager`` talks to: its id, its API token and the base URL of its Platform API.
///
/// Its description never shows the token.
public struct SendbirdApplication: Hashable, Sendable, CustomStringConvertible {
  /// The application's id, such as `5A3F…`.
  public let applicationId: String
  /// The secret sent in the `Api-Token` header.
  public let apiToken: String
  /// Where the Platform API is, such as `https://api-5A3F….sendbird.com`.
  public let baseURL: URL

  /// An application, checked before any request is made of it.
  ///
  /// - Parameters:
  ///   - applicationId: The application's id.
  ///   - apiToken: The secret sent in the `Api-Token` header.
  ///   - baseURL: The Platform API's base URL; by default Sendbird's, ``defaultBaseURL(for:)``.
  /// - Throws: ``UserManagerError`` of kind `UserManagerError.Kind.validation` when the id or the token is empty or
  ///   holds whitespace, or when there is no base URL and the id cannot be a host name.
  public init(applicationId: String, apiToken: String, baseURL: URL? = nil) throws {
    try UserValidation.applicationId(applicationId, needsHostName: baseURL == nil)
    try UserValidation.apiToken(apiToken)
    self.applicationId = applicationId
    self.apiToken = apiToken
    guard let url = baseURL ?? Self.defaultBaseURL(for: applicationId) else {
      throw UserManagerError.validation(field: "applicationId", "\"\(applicationId)\" cannot form a host name.")
    }
    self.baseURL = url
  }

  /// Sendbird's Platform API for `applicationId`: `https://api-{applicationId}.sendbird.com`.
  public static func defaultBaseURL(for applicationId: String) -> URL? {
    URL(string: "https://api-\(applicationId).sendbird.com")
  }

  /// The application as its rate limit knows it: the API's host, its port when there is one, and the id, such as
  /// `api-5A3F….sendbird.com/5A3F…` or `127.0.0.1:8080/5A3F…`. Never the token.
  ///
  /// Managers with the same key share one limit (REQUIREMENTS L1), whatever their token or scheme.
  public var rateLimitKey: String {
    let host = baseURL.host?.lowercased() ?? ""
    return "\(host)\(baseURL.port.map { ":\($0)" } ?? "")/\(applicationId)"
  }

  /// The id and the base URL, its password masked; never the token.
  public var description: String { "\(applicationId) at \(LogRedaction.standard.render(url: baseURL))" }
}
