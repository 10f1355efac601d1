/// A step every event goes through before it is stored (REQUIREMENTS E10): it may add to an event, change it or drop
/// it, as analytics-swift's before and enrichment plugins do.
///
/// The tracker runs its plugins in order, on the caller's task, for every `track`, `screen` and `identify`: keep
/// them quick and free of I/O. A plugin that throws is skipped for that event, and the failure logged: the event goes
/// on as it was before that plugin, never lost to a plugin's bug. Returning `nil` drops the event on purpose; the
/// drop is counted in ``DeliveryStatus/droppedByPlugins``.
///
/// ```swift
/// /// Drops the debug screens, and names the build flavour on every other event.
/// struct FlavourPlugin: EventPlugin {
///   let name = "flavour"
///   func process(_ event: AnalyticsEvent) throws -> AnalyticsEvent? {
///     if event.kind == .screen, event.name.hasPrefix("Debug") { return nil }
///     var event = event
///     event.context["flavour"] = "beta"
///     return event
///   }
/// }
/// ```
public protocol EventPlugin: Sendable {
  /// What the logs call it.
  var name: String { get }

  /// The event as it should go on, or `nil` to drop it.
  ///
  /// - Throws: Anything; the tracker logs it and goes on with `event` unchanged.
  func process(_ event: AnalyticsEvent) throws -> AnalyticsEvent?
}
