import Domain

extension UserImportFeature {
  /// How many times ``live(users:clock:)`` tries a user again whose request the limiter refused unsent.
  public static let refusalRetries = 5

  /// Creates the user; a refusal of the client-side limiter (never sent) is tried again after ``minimumPace``.
  static func creatingRetryingRefusals(
    _ params: UserCreationParams, users: UserManager, clock: any Clock<Duration>
  ) async throws -> User {
    var refusals = 0
    while true {
      do {
        return try await users.createUser(params: params)
      } catch let error as UserManagerError
        where error.requestFailure?.kind == .rateLimited && refusals < refusalRetries
      {
        refusals += 1
        try await clock.sleep(for: minimumPace)
      }
    }
  }
}
