import Foundation
import Networking

/// The two calls the Networking rows make, as an app's router would declare them: create the bench user, read it.
/// It carries no `Api-Token`; the client's ``HeaderInterceptor`` adds it, as an app's auth interceptor would.
enum BenchUsersEndpoint: Endpoint {
  case create(baseURL: URL)
  case get(baseURL: URL, userID: String)

  var baseURL: URL {
    switch self {
    case .create(let baseURL), .get(let baseURL, _): baseURL
    }
  }

  var path: EndpointPath {
    switch self {
    case .create: "/v3/users"
    case .get(_, let userID): ["v3", "users", userID]
    }
  }

  var method: HTTPMethod {
    switch self {
    case .create: .post
    case .get: .get
    }
  }

  var body: HTTPBody {
    switch self {
    case .create: .data(Data(BenchUser.creationBody.utf8), contentType: "application/json")
    case .get: .empty
    }
  }
}
