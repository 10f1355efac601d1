import Foundation
@_exported import KeelErrors
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Why a request a service sent did not succeed: the same facts from every Domain service, readable without
/// `import Networking`.
///
/// Each service's error (``UserManagerError``, ``SessionError``, ``ImageLoaderError``) wraps one as its
/// `requestFailed` kind, the way Nuke's `ImagePipeline.Error.dataLoadingFailed(error:)` wraps a transfer's failure.
/// Compare ``kind``; read ``serverCode`` for what the server said, ``underlying`` for the HTTP client's own error.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let users = Dependencies.live(configuration: KeelConfiguration(dataDirectory: dataDirectory)).users
/// try users.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// do {
///   _ = try await users.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
/// } catch let error as UserManagerError where error.requestFailure?.serverCode == "400202" {
///   // alice exists already
/// }
/// ```
///
/// Two failures are equal when what they say is: the kind, the sentence, the status, the server's code and message
/// and the transport's error code (the error underneath is not compared).
public struct RequestFailure: Sendable, Hashable, CustomStringConvertible {
  /// Why the request failed; more kinds may be added.
  public typealias Kind = ErrorKind<RequestFailure>

  /// Why the request failed.
  public let kind: Kind
  /// A complete sentence, secrets redacted: the HTTP client's own.
  public let description: String
  /// The HTTP status, when the server answered.
  public let statusCode: Int?
  /// The server's code for the error, such as `400202` or `E03`, when its body said.
  public let serverCode: String?
  /// The server's message for the error, when its body said.
  public let serverMessage: String?
  /// The transport's error, for `Kind.transport`.
  public let urlError: URLError?
  /// The HTTP client's error this one was made from (Networking's `NetworkError`).
  public let underlying: any Error

  /// The failure `error` describes.
  package init(_ error: NetworkError) {
    kind =
      switch error.kind {
      case .invalidRequest: .invalidRequest
      case .transport: .transport
      case .server, .status: .server
      case .rateLimited: .rateLimited
      case .sessionExpired: .sessionExpired
      case .decoding: .decoding
      // A kind the client gains later reads as a failed transfer until it is named here.
      default: .transport
      }
    description = error.description
    statusCode = error.statusCode
    serverCode = error.serverError?.code
    serverMessage = error.serverError?.message
    urlError = error.urlError
    underlying = error
  }

  /// Whether both say the same: every field but ``underlying``.
  public static func == (lhs: RequestFailure, rhs: RequestFailure) -> Bool {
    lhs.kind == rhs.kind && lhs.description == rhs.description && lhs.statusCode == rhs.statusCode
      && lhs.serverCode == rhs.serverCode && lhs.serverMessage == rhs.serverMessage
      && lhs.urlError?.code == rhs.urlError?.code
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(description)
    hasher.combine(statusCode)
    hasher.combine(serverCode)
    hasher.combine(serverMessage)
    hasher.combine(urlError?.code.rawValue)
  }

  /// Runs `body`, turning the HTTP client's failure into `wrap`'s error; cancellation and every other error pass
  /// through as they are.
  static func wrapping<Value>(
    _ wrap: (RequestFailure) -> any Error, _ body: () async throws -> Value
  ) async throws -> Value {
    do {
      return try await body()
    } catch let error as NetworkError {
      throw wrap(RequestFailure(error))
    }
  }
}

extension ErrorKind where Owner == RequestFailure {
  /// The request could not be built; nothing was sent.
  public static var invalidRequest: Self { Self("invalidRequest") }
  /// No answer came: no connection, a timeout, a dropped connection. ``RequestFailure/urlError`` has the
  /// transport's code when it gave one.
  public static var transport: Self { Self("transport") }
  /// The server answered with an error: ``RequestFailure/statusCode``, and ``RequestFailure/serverCode`` when its
  /// body said which.
  public static var server: Self { Self("server") }
  /// The answer could not be read.
  public static var decoding: Self { Self("decoding") }
  /// The client-side rate limiter refused the request; it was not sent, and the same call may be tried again.
  public static var rateLimited: Self { Self("rateLimited") }
  /// The session is over (there is none, or its credential could not be refreshed): sign in again.
  public static var sessionExpired: Self { Self("sessionExpired") }
}

/// An error a Domain service throws: its own kinds, and for a request that failed, the ``RequestFailure`` behind it.
///
/// One case covers every service, so a caller classifies a failed request once:
///
/// ```swift
/// func isWorthRetrying(_ error: any Error) -> Bool {
///   guard let failure = (error as? any ServiceError)?.requestFailure else { return false }
///   return [.transport, .rateLimited].contains(failure.kind)
/// }
/// ```
public protocol ServiceError: Error, Sendable, CustomStringConvertible {
  /// Why the request behind this error failed, when a request did.
  var requestFailure: RequestFailure? { get }
}
