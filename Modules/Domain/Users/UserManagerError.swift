/// A failure of the user manager that is not the network's: bad input, no application, or a batch in which some
/// creations failed (REQUIREMENTS U10). Failures on the wire are `NetworkError`s from the Networking module: request
/// building, transport, HTTP status with the server's decoded error, decoding, and the client-side rate limit.
///
/// ```swift
/// do {
///   let users = try await manager.createUsers(params)
/// } catch let error as UserManagerError where error.kind == .partialFailure {
///   cache(error.created)                       // created and cached
///   for failure in error.failures { retryLater(failure.params, because: failure.error) }
/// }
/// ```
public struct UserManagerError: Error, Sendable, CustomStringConvertible {
  /// What went wrong; more kinds may be added.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    /// An input broke a rule (U13, U4, U7); nothing was sent.
    public static let validation = Kind("validation")
    /// No application yet: call `initApplication(applicationId:apiToken:)` first; nothing was sent.
    public static let notInitialized = Kind("notInitialized")
    /// Some creations of a `createUsers` call failed; ``created`` and ``failures`` say which.
    public static let partialFailure = Kind("partialFailure")

    private let name: String
    private init(_ name: String) { self.name = name }
    /// The kind's name.
    public var description: String { name }
  }

  /// What went wrong.
  public let kind: Kind
  /// A readable account of what went wrong and what to do.
  public let description: String
  /// For ``Kind/validation``: the input at fault, such as `params[3].userId`.
  public var field: String?
  /// For ``Kind/partialFailure``: the users created (and cached), in input order.
  public var created: [User] = []
  /// For ``Kind/partialFailure``: each input that failed with its error, in input order.
  public var failures: [UserCreationFailure] = []

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

  static let notInitialized = UserManagerError(
    .notInitialized, "No application: call initApplication(applicationId:apiToken:) before any other call.")
}

/// One input of a `createUsers` call that failed, and why.
public struct UserCreationFailure: Sendable, CustomStringConvertible {
  /// The input's position in the call.
  public let index: Int
  /// The user that was not created, as it was given.
  public let params: UserCreationParams
  /// Why it failed: usually a `NetworkError`, such as the server's `400202` (the user already exists) or a refusal
  /// of the client-side rate limit.
  public let error: any Error

  /// A failed input.
  public init(index: Int, params: UserCreationParams, error: any Error) {
    self.index = index
    self.params = params
    self.error = error
  }

  /// The input's position and id, and the error.
  public var description: String { "params[\(index)] (\(params.userId)): \(error)" }
}
