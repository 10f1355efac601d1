/// What ``EventTracker/track(_:)`` did with an event that broke no rule.
public enum TrackOutcome: Sendable, Hashable {
  /// It is on disk, waiting for delivery.
  case stored
  /// The user opted out (``EventTracker/optOut(purgingQueued:)``): nothing was stored, and the refusal was counted
  /// in ``DeliveryStatus/refusedByConsent``.
  case refusedByConsent
  /// The plugin with this name dropped it on purpose; counted in ``DeliveryStatus/droppedByPlugins``.
  case droppedByPlugin(String)
}
