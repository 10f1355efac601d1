import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sets one header on every attempt: the shape of an app's auth-token or user-agent interceptor.
struct HeaderInterceptor: RequestInterceptor {
  let name: String
  let value: String

  func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
    request.setValue(value, forHTTPHeaderField: name)
  }
}
