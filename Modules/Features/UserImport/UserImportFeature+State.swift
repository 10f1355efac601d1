import Domain

extension UserImportFeature {
  /// What the import screen shows: the users to create, what became of each one, and the progress.
  public struct State: Equatable, Sendable {
    /// The users to create, in the order given.
    public let users: [UserCreationParams]
    /// Where the import is.
    public var phase: Phase
    /// How many of ``users``, from the first, belong to the batches started so far.
    public var started: Int
    /// What became of each user tried, by its position in ``users``.
    public var outcomes: [Int: Outcome]
    /// The time since the import started, on the feature's clock, when the last user finished.
    public var elapsed: Duration
    /// How long the rest should take, or `nil` before the first user finished and once the import is over: the users
    /// left times the pace so far, never faster than ``UserImportFeature/minimumPace``.
    public var estimatedTimeLeft: Duration?
    /// Whether the import stops once the user in flight finishes (``UserImportFeature/View/stopTapped``).
    public var isStopping: Bool

    /// An import of `users` that has not started.
    public init(users: [UserCreationParams]) {
      self.users = users
      phase = .ready
      started = 0
      outcomes = [:]
      elapsed = .zero
      estimatedTimeLeft = nil
      isStopping = false
    }

    /// How far the import is, for a progress bar.
    public var progress: Progress {
      let failed = outcomes.values.count(where: { if case .failed = $0 { true } else { false } })
      return Progress(
        done: outcomes.count, failed: failed, total: users.count, estimatedTimeLeft: estimatedTimeLeft)
    }

    /// The user being created now, by its position in ``users``, or `nil` when none is: users are created one after
    /// another, in order.
    public var inFlight: Int? {
      phase == .importing && outcomes.count < started ? outcomes.count : nil
    }

    /// What the import did so far, as ``UserImportFeature/Report``: every user created or failed, and those not
    /// finished.
    public var report: Report {
      var report = Report(wasCancelled: phase == .cancelled || phase == .stopped, elapsed: elapsed)
      // Stopped, the import waited for its user in flight: the next one was never sent.
      let unfinished = outcomes.count < started && phase != .stopped ? outcomes.count : nil
      for (index, params) in users.enumerated() {
        switch outcomes[index] {
        case .created(let user): report.created.append(user)
        case .failed(let error): report.failures.append(UserCreationFailure(index: index, params: params, error: error))
        case nil where index == unfinished: report.interrupted.append(params)
        case nil: report.notStarted.append(params)
        }
      }
      return report
    }
  }

  /// Where an import is.
  public enum Phase: Hashable, Sendable {
    /// Not started yet.
    case ready
    /// Creating users.
    case importing
    /// Every user was tried.
    case finished
    /// Cancelled before every user was tried; the user in flight may or may not have been created.
    case cancelled
    /// Stopped on request before every user was tried, once the user in flight had finished.
    case stopped
  }

  /// What became of one user.
  public enum Outcome: Equatable, Sendable {
    /// The server created the user.
    case created(User)
    /// The user was not created, for `error`: a bad input (nothing sent), the user existing already, a network or
    /// server failure.
    case failed(UserManagerError)
  }

  /// How far an import is.
  public struct Progress: Equatable, Sendable {
    /// Users finished, created or failed.
    public var done: Int
    /// Users that failed, among ``done``.
    public var failed: Int
    /// Users to create in all.
    public var total: Int
    /// How long the rest should take at the pace so far, or `nil` when unknown.
    public var estimatedTimeLeft: Duration?

    /// Progress with `done` of `total` users handled, `failed` of them failed, and the time left if known.
    public init(done: Int, failed: Int, total: Int, estimatedTimeLeft: Duration?) {
      self.done = done
      self.failed = failed
      self.total = total
      self.estimatedTimeLeft = estimatedTimeLeft
    }

    /// The part done, from 0 to 1; 1 for an empty import.
    public var fractionDone: Double { total == 0 ? 1 : Double(done) / Double(total) }
  }
}
