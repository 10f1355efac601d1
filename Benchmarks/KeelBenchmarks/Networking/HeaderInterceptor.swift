import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sets one header on every attempt: the shape of an app's auth-token or user-agent interceptor.
struct HeaderInterceptor: RequestInterceptor {
  let name: String
  let value: String

  func adapt(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
    var request = request
    request.setValue(value, forHTTPHeaderField: name)
    return request
  }
}
