import Domain

/// Creates a list of users in batches of at most ``batchSize`` under the user manager's one-request-per-second limit,
/// with progress, an estimate of the time left, and cancel (REQUIREMENTS F1–F3, U4, U8, D1).
///
/// - A batch hands its users to the user manager all at once: no more than its rate limiter lets wait in line, so
///   none is refused by the limiter, and the limiter spaces the requests. The next batch starts when every user of
///   the previous one has finished.
/// - Each user that finishes, created or failed, updates the progress at once; the estimate of the time left is the
///   pace so far, measured on the injected clock, times the users left.
/// - A user that fails does not stop the import: its reason is kept, and the ``Report`` lists it.
/// - Cancelling stops the requests in flight and sends nothing more; the report says which users were in flight (the
///   server may have created them) and which were never sent.
/// - The import ends, finished or cancelled, with ``Action/Delegate/finished(_:)`` and its ``Report`` (F2).
///
/// ```swift
/// let store = Store(initialState: UserImportFeature.State(users: rows),
///                   reducer: UserImportFeature.live(users: dependencies.users, clock: ContinuousClock()))
/// store.send(.view(.startTapped))
/// for await state in store.states() { render(state.progress) }
/// ```
public struct UserImportFeature: Reducer {
  /// What can happen to an import, grouped by where it comes from (F3).
  public enum Action: Equatable, Sendable {
    /// The user did something on screen.
    case view(View)
    /// The import's own work moved on.
    case `internal`(Internal)
    /// A user finished.
    case response(Response)
    /// Something for the parent to act on (F2).
    case delegate(Delegate)

    /// What the user does on screen.
    public enum View: Equatable, Sendable {
      /// Start the import; ignored unless it is ``Phase/ready``.
      case startTapped
      /// Stop the import; ignored unless it is ``Phase/importing``.
      case cancelTapped
    }

    /// Steps of the import's work.
    public enum Internal: Equatable, Sendable {
      /// The users at `indices` were handed to the user manager.
      case batchStarted(Range<Int>)
      /// Every batch is done.
      case allBatchesFinished
    }

    /// A user finished, `elapsed` after the import started.
    public enum Response: Equatable, Sendable {
      /// The user at `index` was created.
      case created(index: Int, user: User, elapsed: Duration)
      /// The user at `index` was not created, for `reason`.
      case failed(index: Int, reason: String, elapsed: Duration)
    }

    /// What the import tells its parent.
    public enum Delegate: Equatable, Sendable {
      /// The import ended, every user tried or cancelled; the report says what it did.
      case finished(Report)
    }
  }

  /// The most users handed to the user manager at once: as many as its rate limiter (`LeakyBucket.userManager`)
  /// lets wait in line.
  public static let batchSize = 10

  private struct ImportID: Hashable, Sendable {}

  private let create: @Sendable (UserCreationParams) async throws -> User
  private let clock: any Clock<Duration>

  /// An import feature.
  ///
  /// - Parameters:
  ///   - create: Creates one user; its error's description becomes the user's failure reason. Cancelled when the
  ///     import is.
  ///   - clock: What the progress is measured on: a `TestClock` in tests.
  public init(create: @escaping @Sendable (UserCreationParams) async throws -> User, clock: any Clock<Duration>) {
    self.create = create
    self.clock = clock
  }

  /// An import feature that creates users with `users` (U3, U8), measuring progress on `clock`.
  public static func live(users: UserManager, clock: any Clock<Duration>) -> UserImportFeature {
    UserImportFeature(create: { try await users.createUser(params: $0) }, clock: clock)
  }

  /// Applies `action` to the import.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.startTapped):
      guard state.phase == .ready else { return .none }
      state.phase = .importing
      return importing(state.users)
    case .view(.cancelTapped):
      guard state.phase == .importing else { return .none }
      state.phase = .cancelled
      state.estimatedTimeLeft = nil
      return .merge(.cancel(id: ImportID()), .send(.delegate(.finished(state.report))))
    case .internal(.batchStarted(let indices)):
      state.started = max(state.started, indices.upperBound)
      return .none
    case .internal(.allBatchesFinished):
      guard state.phase == .importing else { return .none }
      state.phase = .finished
      state.estimatedTimeLeft = nil
      return .send(.delegate(.finished(state.report)))
    case .response(.created(let index, let user, let elapsed)):
      record(.created(user), at: index, elapsed: elapsed, in: &state)
      return .none
    case .response(.failed(let index, let reason, let elapsed)):
      record(.failed(reason: reason), at: index, elapsed: elapsed, in: &state)
      return .none
    case .delegate:
      return .none
    }
  }

  private func record(_ outcome: Outcome, at index: Int, elapsed: Duration, in state: inout State) {
    guard state.phase == .importing, state.users.indices.contains(index) else { return }
    state.outcomes[index] = outcome
    state.elapsed = elapsed
    let done = state.outcomes.count
    let left = state.users.count - done
    state.estimatedTimeLeft = left == 0 ? nil : elapsed * left / done
  }

  private func importing(_ users: [UserCreationParams]) -> Effect<Action> {
    .run { [create, clock] send in
      let stopwatch = Stopwatch(clock)
      for start in stride(from: 0, to: users.count, by: Self.batchSize) {
        let batch = start..<min(start + Self.batchSize, users.count)
        await send(.internal(.batchStarted(batch)))
        await withTaskGroup(of: Void.self) { group in
          for index in batch {
            group.addTask {
              do {
                let user = try await create(users[index])
                await send(.response(.created(index: index, user: user, elapsed: stopwatch.elapsed)))
              } catch {
                guard !Task.isCancelled else { return }
                await send(.response(.failed(index: index, reason: "\(error)", elapsed: stopwatch.elapsed)))
              }
            }
          }
        }
        guard !Task.isCancelled else { return }
      }
      await send(.internal(.allBatchesFinished))
    }
    .cancellable(id: ImportID(), cancelInFlight: true)
  }
}
