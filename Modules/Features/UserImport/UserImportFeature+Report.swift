import Domain

extension UserImportFeature {
  /// What an import did, sent to the parent as ``Delegate/finished(_:)`` when it ends, finished or cancelled.
  public struct Report: Equatable, Sendable {
    /// The users created, in the order of the input.
    public var created: [User] = []
    /// The users that were not created, each with its position in the input and why, in the order of the input: the
    /// user manager's own `UserCreationFailure`, as `createUsers` reports a batch's.
    public var failures: [UserCreationFailure] = []
    /// The user whose request was in flight when the import was cancelled, if any: the server may or may not have
    /// created it (a `getUser` tells).
    public var interrupted: [UserCreationParams] = []
    /// The users never sent, because the import was cancelled first.
    public var notStarted: [UserCreationParams] = []
    /// Whether the import was cancelled or stopped before every user was tried.
    public var wasCancelled: Bool
    /// How long the import took, on the feature's clock, until its last user finished (for a cancelled import, not
    /// until the cancel).
    public var elapsed: Duration

    /// A report with nothing created yet; `wasCancelled` and `elapsed` as given.
    public init(wasCancelled: Bool, elapsed: Duration) {
      self.wasCancelled = wasCancelled
      self.elapsed = elapsed
    }
  }
}
