import ArgumentParser
import Domain
import KeelErrors

/// `keel users create alice:Alice bob:Bob`: creates 1 to 10 users, one request per second.
struct UsersCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Create 1 to \(UserManager.maxBatchSize) users, one request per second.",
    discussion: """
      Each user is ID:NICKNAME or ID:NICKNAME:PROFILE_URL. Every user is checked before the first is sent: \
      11 or more, an empty nickname or an id twice sends nothing (exit 65).
      """
  )

  @Argument(help: "The users, as ID:NICKNAME[:PROFILE_URL].")
  var users: [String]

  @OptionGroup var global: GlobalOptions
  @OptionGroup var limits: LimiterStoreOptions

  func validate() throws {
    guard !users.isEmpty else { throw ValidationError("Give at least one user, as ID:NICKNAME.") }
    for user in users where user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).count < 2 {
      throw ValidationError("'\(user)' is not ID:NICKNAME[:PROFILE_URL], such as alice:Alice.")
    }
  }

  func run() async throws {
    try await global.run(limits: limits) { context in
      let params = try Self.checked(users.map(Self.params))
      let manager = try context.users()
      if params.count > 1 {
        context.output.note("Creating \(params.count) users at one request per second…")
      }
      let created: [User]
      do {
        created =
          params.count == 1
          ? [try await manager.createUser(params: params[0])] : try await manager.createUsers(params: params)
      } catch let error as UserManagerError where error.kind == .partialFailure {
        try Self.report(error, context: context)
        return
      }
      try context.output.result(
        UserList(users: created), human: created.map { "Created \($0.line)" }.joined(separator: "\n"))
      try context.requireCacheWritten(manager)
    }
  }

  /// Checks the users by the user manager's own rules for one `createUsers` call, before anything is sent; the
  /// failure says which user, or what to use for more.
  static func checked(_ params: [UserCreationParams]) throws -> [UserCreationParams] {
    do {
      try UserValidation.batch(params)
    } catch let error as UserManagerError {
      guard let field = error.field, field.hasPrefix("params["),
        let index = Int(field.dropFirst("params[".count).prefix { $0.isNumber })
      else {
        throw CommandFailure(
          .invalidInput, "\(error.description.clause). Use keel users import FILE for more. Nothing was sent.")
      }
      throw CommandFailure(
        .invalidInput, "User '\(params[index].userId)': \(error.description.clause). Nothing was sent.")
    }
    return params
  }

  /// Prints the users created, then fails with the ones that were not.
  private static func report(_ error: UserManagerError, context: CommandContext) throws {
    try context.output.result(
      UserList(users: error.created), human: error.created.map { "Created \($0.line)" }.joined(separator: "\n"))
    let failures = error.failures.map { "\($0.params.userId): \(CommandFailure.from($0.error).description.clause)" }
    var failure = CommandFailure.from(error.failures.first?.error ?? error)
    failure.description =
      "\(error.failures.count) of \(error.failures.count + error.created.count) users were not created: "
      + failures.joined(separator: "; ") + "."
    failure.followsResult = true
    throw failure
  }

  /// The params `text` (ID:NICKNAME[:PROFILE_URL]) describes.
  static func params(_ text: String) throws -> UserCreationParams {
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let params = UserCreationParams(userId: parts[0], nickname: parts[1], profileURL: parts.count > 2 ? parts[2] : nil)
    guard !params.nickname.allSatisfy(\.isWhitespace) else {
      throw CommandFailure(
        .invalidInput,
        "The nickname of '\(params.userId)' is empty; give one, as \(params.userId):Name. Nothing was sent.")
    }
    return params
  }
}
