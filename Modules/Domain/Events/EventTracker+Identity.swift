import Foundation
import KeelConcurrency
import KeelJSON
import Logging
import Persistence

extension EventTracker {
  /// This installation's anonymous id: created once, kept across restarts, renewed by ``reset()``.
  public var anonymousId: String { identity.withLock { $0.anonymousId } }

  /// The identified user's id, or `nil` before ``identify(userId:traits:)`` and after ``reset()``.
  public var userId: String? { identity.withLock { $0.userId } }

  /// Whether the user opted out: `track` stores nothing until ``optIn()``.
  public var isOptedOut: Bool { identity.withLock { $0.optedOut } }

  /// Names the user every later event is about, keeps it across restarts, and tracks an `identify` event with
  /// `traits` (REQUIREMENTS E10). Another user's traits replace the previous user's; the same user's are merged.
  ///
  /// - Returns: What happened to the `identify` event: refused while the user is opted out (the identity is kept
  ///   all the same).
  /// - Throws: ``EventTrackerError``: `EventTrackerError.Kind.invalidEvent` for an empty or overlong id, or traits
  ///   past the size cap (nothing changed); `EventTrackerError.Kind.storage` when the identity cannot be kept.
  @discardableResult
  public func identify(userId: String, traits: [String: JSONValue] = [:]) async throws -> TrackOutcome {
    let event = AnalyticsEvent(kind: .identify, name: "identify", traits: traits, timestamp: now(), userId: userId)
    try validateUserId(userId)
    try validate(event)
    try updateIdentity { identity in
      identity.traits = identity.userId == userId ? identity.traits.merging(traits) { $1 } : traits
      identity.userId = userId
    }
    return try await track(event)
  }

  /// Forgets the identified user and starts a new anonymous id, as on sign-out (REQUIREMENTS E10): later events
  /// cannot be tied to the earlier ones on this device. Events already stored keep the ids they were tracked with.
  ///
  /// - Throws: `EventTrackerError.Kind.storage` when the new identity cannot be kept; the old one stays.
  public func reset() throws {
    try updateIdentity { identity in
      identity.anonymousId = UUID().uuidString.lowercased()
      identity.userId = nil
      identity.traits = [:]
    }
  }

  /// Stops collection until ``optIn()``, across restarts (REQUIREMENTS E11): `track`, `identify` and screens store
  /// nothing and are counted in ``DeliveryStatus/refusedByConsent``. With `purgingQueued`, the events already stored
  /// and not delivered are deleted too; otherwise they are still delivered.
  ///
  /// - Throws: `EventTrackerError.Kind.storage` when the choice cannot be kept (collection goes on) or the queue
  ///   cannot be emptied (collection has stopped).
  public func optOut(purgingQueued: Bool = false) async throws {
    try updateIdentity { $0.optedOut = true }
    guard purgingQueued else { return }
    _ = await startup.value
    do {
      let removed = try await queue.removeAllPending()
      broadcast.update { $0.pending -= removed }
      logger.info("Consent withdrawn: \(removed) stored events were deleted.")
    } catch {
      throw EventTrackerError(.storage, "Cannot delete the stored events: \(error)", underlying: error)
    }
  }

  /// Resumes collection after ``optOut(purgingQueued:)``, across restarts.
  ///
  /// - Throws: `EventTrackerError.Kind.storage` when the choice cannot be kept; collection stays stopped.
  public func optIn() throws {
    try updateIdentity { $0.optedOut = false }
  }

  /// What ``track(_:)`` stores for `event`, in its stored form: stamped, enriched and through the plugins; or why
  /// nothing is stored.
  func prepare(_ event: AnalyticsEvent) -> Prepared {
    let identity = identity.withLock { $0 }
    guard !identity.optedOut else {
      broadcast.update { $0.refusedByConsent += 1 }
      return .refused
    }
    var event = event
    if event.anonymousId == nil { event.anonymousId = identity.anonymousId }
    if event.userId == nil { event.userId = identity.userId }
    let sessionId = session.withLock { $0.id(at: now(), timeout: configuration.sessionTimeout) }
    // Without plugins nobody reads the merged context before it is stored: the built-in part is written from its
    // bytes, kept since the tracker started, rather than merged into a dictionary and serialized for each event.
    guard !plugins.isEmpty else { return .ready(event.storedJSON(adding: builtInContext, sessionId: sessionId)) }
    var context = builtInContext.fields
    context["sessionId"] = .number(Double(sessionId))
    // The app's own context wins over the built-in values.
    for (key, value) in event.context { context[key] = value }
    event.context = context
    let enriched = event
    for plugin in plugins {
      do {
        guard let processed = try plugin.process(event) else {
          broadcast.update { $0.droppedByPlugins += 1 }
          return .dropped(plugin.name)
        }
        event = processed
      } catch {
        logger.error(
          "Plugin \(plugin.name) failed on \(event.name) (\(event.eventId)); it goes on without it: \(error)")
      }
    }
    guard event.eventId == enriched.eventId, (try? validate(event, enriched: true)) != nil else {
      logger.error("The plugins made \(enriched.name) (\(enriched.eventId)) break a rule; it is stored as enriched.")
      return .ready(enriched.storedJSON())
    }
    return .ready(event.storedJSON())
  }

  /// What ``prepare(_:)`` decided.
  enum Prepared {
    /// Store this payload.
    case ready(Data)
    case refused
    case dropped(String)
  }

  private func validateUserId(_ userId: String) throws {
    guard !userId.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
      userId.count <= configuration.maxNameLength,
      !userId.unicodeScalars.contains(where: UserValidation.isRefused)
    else {
      throw EventTrackerError(
        .invalidEvent,
        "A user id is 1 to \(configuration.maxNameLength) characters, not blank, without control characters.")
    }
  }

  /// Changes the identity and keeps it; on a failure to keep it, nothing changes.
  private func updateIdentity(_ change: (inout AnalyticsIdentity) -> Void) throws {
    try identity.withLock { identity in
      var updated = identity
      change(&updated)
      do {
        try settings.set(updated, forKey: AnalyticsIdentity.key)
      } catch {
        throw EventTrackerError(.storage, "Cannot keep the analytics identity: \(error)", underlying: error)
      }
      identity = updated
    }
    let optedOut = isOptedOut
    broadcast.update { $0.isOptedOut = optedOut }
  }
}
