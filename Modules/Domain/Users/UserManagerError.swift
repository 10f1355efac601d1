@_exported import KeelErrors

/// Every failure of the user manager (REQUIREMENTS U10): bad input, no application, a request that failed (with the
/// server's code, the transport's error, or the client-side rate limit's refusal in ``requestFailure``), or a batch in
/// which some creations failed. A cancelled call throws `CancellationError`.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let manager = Dependencies.live(configuration: KeelConfiguration(dataDirectory: dataDirectory)).users
/// try manager.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// let params = ["alice", "bob", "carol"].map { UserCreationParams(userId: $0, nickname: $0) }
/// do {
///   let users = try await manager.createUsers(params: params)
///   print("Created", users.map(\.userId))
/// } catch let error as UserManagerError where error.kind == .partialFailure {
///   print("Created", error.created.map(\.userId))  // created and cached
///   for failure in error.failures where failure.error.requestFailure?.kind == .rateLimited {
///     print("Try \(failure.params.userId) again later.")
///   }
/// }
/// ```
public struct UserManagerError: ServiceError, Equatable {
  /// What went wrong; more kinds may be added.
  public typealias Kind = ErrorKind<UserManagerError>

  /// What went wrong.
  public let kind: Kind
  /// A readable account of what went wrong and what to do.
  public let description: String
  /// For `Kind.validation`: the input at fault, such as `params[3].userId`.
  public var field: String?
  /// For `Kind.partialFailure`: the users created (and cached), in input order.
  public var created: [User] = []
  /// For `Kind.partialFailure`: each input that failed with its error, in input order.
  public var failures: [UserCreationFailure] = []
  /// For `Kind.requestFailed`: why the request failed, with the server's code when it gave one.
  public var requestFailure: RequestFailure?

  /// An error of `kind`.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  static func validation(field: String, _ description: String) -> UserManagerError {
    // The sentence speaks to a person; `field` names the input for code (one spelling: `params[3].userId`).
    var error = UserManagerError(.validation, description)
    error.field = field
    return error
  }

  static func requestFailed(_ failure: RequestFailure) -> UserManagerError {
    var error = UserManagerError(.requestFailed, failure.description)
    error.requestFailure = failure
    return error
  }

  static let notInitialized = UserManagerError(
    .notInitialized, "No application: call initApplication(applicationId:apiToken:) before any other call.")
}

extension ErrorKind where Owner == UserManagerError {
  /// An input broke a rule (U13, U4, U7); nothing was sent.
  public static var validation: Self { Self("validation") }
  /// No application yet: call `initApplication(applicationId:apiToken:)` first; nothing was sent.
  public static var notInitialized: Self { Self("notInitialized") }
  /// Some creations of a `createUsers` call failed; ``UserManagerError/created`` and ``UserManagerError/failures`` say which.
  public static var partialFailure: Self { Self("partialFailure") }
  /// A request failed: refused by the client-side rate limit (never sent), not answered, or answered with an
  /// error; ``UserManagerError/requestFailure`` says which.
  public static var requestFailed: Self { Self("requestFailed") }
}

/// One input of a `createUsers` call that failed, and why.
public struct UserCreationFailure: Equatable, Sendable, CustomStringConvertible {
  /// The input's position in the call.
  public let index: Int
  /// The user that was not created, as it was given.
  public let params: UserCreationParams
  /// Why it failed: usually `UserManagerError.Kind.requestFailed`, such as the server's `400202` (the user already
  /// exists) or a refusal of the client-side rate limit.
  public let error: UserManagerError

  /// A failed input.
  public init(index: Int, params: UserCreationParams, error: UserManagerError) {
    self.index = index
    self.params = params
    self.error = error
  }

  /// The input's position and id, and the error.
  public var description: String { "params[\(index)] (\(params.userId)): \(error)" }
}
