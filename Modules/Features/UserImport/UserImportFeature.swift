import Domain

/// Creates a list of users in batches of at most ``batchSize`` under the user manager's one-request-per-second limit,
/// with progress, an estimate of the time left, and cancel (REQUIREMENTS F1–F3, U4, U8, D1).
///
/// - The users of a batch go to the user manager one after another, in input order, as its `createUsers` sends them:
///   the limiter spaces requests a second apart whatever the caller does, so sending them together would be no
///   faster, and it would fill the limiter's line (which refuses a request that would wait more than 9 s) and make
///   a search typed meanwhile fail. With one import request waiting at a time, nothing is refused.
/// - Each user that finishes, created or failed, updates the progress at once. The estimate of the time left is the
///   users left times the pace so far, measured on the injected clock, but never less than ``minimumPace`` (the
///   limiter's interval): the first request leaves at once, so the first answers alone would promise too much.
/// - A user that fails does not stop the import: its reason is kept, and the ``Report`` lists it.
/// - Cancelling stops the request in flight and sends nothing more; the report says which user was in flight (the
///   server may have created it) and which were never sent. Stopping (``View/stopTapped``) waits for the user
///   in flight to finish first, so that every user is either done or never sent.
/// - The import ends, finished or cancelled, with ``Delegate/finished(_:)`` and its ``Report`` (F2).
///
/// ```swift
/// import Domain
///
/// let dependencies = Dependencies.live(configuration: KeelConfiguration())
/// try dependencies.users.initApplication(applicationId: "APP_ID", apiToken: "API_TOKEN")
/// let rows = [UserCreationParams(userId: "ada", nickname: "Ada"), UserCreationParams(userId: "bob", nickname: "Bob")]
///
/// let store = Store(initialState: UserImportFeature.State(users: rows),
///                   reducer: UserImportFeature.live(users: dependencies.users, clock: ContinuousClock()))
/// store.send(.view(.startTapped))
/// for await state in store.states() {
///   print("\(state.progress.done) of \(state.progress.total)")
///   if state.phase != .importing { break }   // finished, cancelled or stopped
/// }
/// print(store.state.report.failures)
/// ```
public struct UserImportFeature: Reducer {
  /// What can happen to an import, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// Start the import; ignored unless it is ``Phase/ready``.
    case startTapped
    /// Stop the import now, cancelling the request in flight; ignored unless it is ``Phase/importing``.
    case cancelTapped
    /// Stop the import once the user in flight finishes, so that nothing is left half done; ignored unless it is
    /// ``Phase/importing``.
    case stopTapped
  }

  /// Steps of the import's work.
  public enum Internal: Equatable, Sendable {
    /// The users at `indices` are the batch now being created, one after another.
    case batchStarted(Range<Int>)
    /// Every batch is done.
    case allBatchesFinished
  }

  /// A user finished, `elapsed` after the import started.
  public enum Response: Equatable, Sendable {
    /// The user at `index` was created.
    case created(index: Int, user: User, elapsed: Duration)
    /// The user at `index` was not created, for `error`.
    case failed(index: Int, error: UserManagerError, elapsed: Duration)
  }

  /// What the import tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The import ended, every user tried or cancelled; the report says what it did.
    case finished(Report)
  }

  /// The most users in a batch: as many as the user manager's `createUsers` takes (U4).
  public static let batchSize = 10

  /// The shortest time a user can take: the interval of the user manager's limiter (U8).
  public static let minimumPace: Duration = .seconds(1)

  private struct ImportID: Hashable, Sendable {}

  private let create: @Sendable (UserCreationParams) async throws -> User
  private let clock: any Clock<Duration>

  /// An import feature.
  ///
  /// - Parameters:
  ///   - create: Creates one user; its error is the user's failure (a `UserManagerError` as it is, any other as a
  ///     failed request). Cancelled when the import is. Called for one user at a time.
  ///   - clock: What the progress is measured on: a `TestClock` in tests.
  public init(create: @escaping @Sendable (UserCreationParams) async throws -> User, clock: any Clock<Duration>) {
    self.create = create
    self.clock = clock
  }

  /// An import feature that creates users with `users` (U3, U8), measuring progress on `clock`.
  ///
  /// A request the limiter refuses because other callers filled its line was never sent: it is tried again after
  /// ``minimumPace``, up to ``refusalRetries`` times, before it counts as failed.
  public static func live(users: UserManager, clock: any Clock<Duration>) -> UserImportFeature {
    UserImportFeature(
      create: { params in try await creatingRetryingRefusals(params, users: users, clock: clock) }, clock: clock)
  }

  /// Applies `action` to the import.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.startTapped):
      guard state.phase == .ready else { return .none }
      state.phase = .importing
      return importing(state.users)
    case .view(.cancelTapped):
      // Every user already tried: the import is finishing, not to be reported as cancelled.
      guard state.phase == .importing, state.outcomes.count < state.users.count else { return .none }
      state.phase = .cancelled
      state.estimatedTimeLeft = nil
      return .merge(.cancel(id: ImportID()), .send(.delegate(.finished(state.report))))
    case .view(.stopTapped):
      guard state.phase == .importing, state.outcomes.count < state.users.count else { return .none }
      state.isStopping = true
      return .none
    case .internal(.batchStarted(let indices)):
      state.started = max(state.started, indices.upperBound)
      return .none
    case .internal(.allBatchesFinished):
      guard state.phase == .importing else { return .none }
      state.phase = .finished
      state.estimatedTimeLeft = nil
      return .send(.delegate(.finished(state.report)))
    case .response(.created(let index, let user, let elapsed)):
      return record(.created(user), at: index, elapsed: elapsed, in: &state)
    case .response(.failed(let index, let error, let elapsed)):
      return record(.failed(error), at: index, elapsed: elapsed, in: &state)
    case .delegate:
      return .none
    }
  }

  private func record(_ outcome: Outcome, at index: Int, elapsed: Duration, in state: inout State) -> Effect<Action> {
    guard state.phase == .importing, state.users.indices.contains(index) else { return .none }
    state.outcomes[index] = outcome
    state.elapsed = max(state.elapsed, elapsed)
    let done = state.outcomes.count
    let left = state.users.count - done
    state.estimatedTimeLeft = left == 0 ? nil : max(state.elapsed / done, Self.minimumPace) * left
    guard state.isStopping, left > 0 else { return .none }
    // Asked to stop, and the user in flight has finished: the next one, at most waiting at the limiter, is never sent.
    state.phase = .stopped
    state.estimatedTimeLeft = nil
    return .merge(.cancel(id: ImportID()), .send(.delegate(.finished(state.report))))
  }

  private func importing(_ users: [UserCreationParams]) -> Effect<Action> {
    .run { [create, clock] send in
      let stopwatch = Stopwatch(clock)
      for start in stride(from: 0, to: users.count, by: Self.batchSize) {
        let batch = start..<min(start + Self.batchSize, users.count)
        await send(.internal(.batchStarted(batch)))
        for index in batch {
          guard !Task.isCancelled else { return }
          do {
            let user = try await create(users[index])
            await send(.response(.created(index: index, user: user, elapsed: stopwatch.elapsed)))
          } catch {
            guard !Task.isCancelled else { return }
            // The user manager's own error as it is; anything else (a client of the app's own) as a failed request.
            let failure = error as? UserManagerError ?? UserManagerError(.requestFailed, "\(error)")
            await send(.response(.failed(index: index, error: failure, elapsed: stopwatch.elapsed)))
          }
        }
      }
      await send(.internal(.allBatchesFinished))
    }
    .cancellable(id: ImportID(), cancelInFlight: true)
  }
}
