/// What the ``TestStore``'s inner store reduces: the feature's action tagged by who sent it, and the store's own
/// request to cancel every effect.
enum TestStoreAction<Action: Sendable>: Sendable {
  /// Sent by the test with ``TestStore/send(_:assert:fileID:filePath:line:column:)``.
  case sent(Action)
  /// Sent by an effect (a `.send` effect or `.run` work): the test must `receive` it.
  case received(Action)
  /// Cancels every effect the feature started (``TestStore/skipInFlightEffects(timeout:)``).
  case cancelInFlightEffects
  /// The feature returned `Effect.dismiss`, which nothing presents here: ``TestStore/isDismissed`` records it.
  case dismissed
}

/// The id every effect of a ``TestStore``'s feature runs under, so that they can all be cancelled at once.
struct InFlightEffectsID: Hashable, Sendable {}
