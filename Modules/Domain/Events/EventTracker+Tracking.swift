import Foundation
import KeelConcurrency
import KeelJSON
import Logging
import Networking
import Persistence

extension EventTracker {
  /// Stores `event` for delivery and returns once it is on disk; never waits for the network.
  ///
  /// The tracker stamps the event with the anonymous id and the identified user (unless it has its own), adds the
  /// context, runs the plugins, and commits it. The event is stored even if the calling task is cancelled meanwhile:
  /// a tracked event is not taken back. Events tracked at the same time from several tasks share one transaction,
  /// in the order they arrived.
  ///
  /// - Returns: Whether it was stored, refused because the user opted out, or dropped by a plugin.
  /// - Throws: ``EventTrackerError``: `EventTrackerError.Kind.invalidEvent` (an empty or overlong name, properties
  ///   past the size cap or holding a non-finite number) with nothing stored; `EventTrackerError.Kind.queueFull`
  ///   under the reject-new policy; `EventTrackerError.Kind.storage`; `EventTrackerError.Kind.shutDown`.
  @discardableResult
  public func track(_ event: AnalyticsEvent) async throws -> TrackOutcome {
    try validate(event)
    guard !control.withLock({ $0.isShutDown }) else {
      throw EventTrackerError(.shutDown, "The tracker was shut down; \(event.name) was not stored.")
    }
    let prepared: Data
    switch prepare(event) {
    case .refused: return .refusedByConsent
    case .dropped(let plugin): return .droppedByPlugin(plugin)
    case .ready(let payload): prepared = payload
    }
    // The status counts what the file held at start first, then each change.
    _ = await startup.value
    do {
      try await committer.commit(prepared)
    } catch let error as PersistenceError where error.kind == .capacityExceeded {
      throw EventTrackerError(.queueFull, "The event queue is full; \(event.name) was not stored.", underlying: error)
    } catch {
      throw EventTrackerError(.storage, "Cannot store \(event.name): \(error)", underlying: error)
    }
    let reachedFlushCount = control.withLock { control in
      control.trackedSinceUpload += 1
      return control.trackedSinceUpload == configuration.flushCount
    }
    if reachedFlushCount { wake() }
    return .stored
  }

  /// Uploads every pending event now, those waiting for the retry date of an earlier failure too (the app asked), and
  /// returns when they have been delivered, or when delivery cannot go on for now (offline, or an upload failing:
  /// ``status`` says why and when the tracker tries again by itself).
  ///
  /// - Returns: What the flush delivered, what the server refused on its own and was set aside (with its reasons),
  ///   and where delivery stands.
  @discardableResult
  public func flush() async -> FlushReport {
    let (mark, notKeptMark) = control.withLock { ($0.setAside.total, $0.setAside.notKept) }
    let deliveredBefore = broadcast.current.delivered
    await withCheckedContinuation { continuation in
      let accepted = control.withLock { control in
        guard !control.isShutDown else { return false }
        control.flushRequested = true
        control.flushWaiters.append(continuation)
        return true
      }
      if accepted { wake() } else { continuation.resume() }
    }
    let status = await loadedStatus
    let (count, setAside, notKept) = control.withLock {
      ($0.setAside.total - mark, $0.setAside.since(mark), $0.setAside.notKept - notKeptMark)
    }
    return FlushReport(
      delivered: status.delivered - deliveredBefore, setAsideCount: count, setAside: setAside, status: status,
      notKeptCount: notKept)
  }

  /// Throws unless `event` keeps every rule; `enriched` allows its context the built-in enrichment's share too.
  func validate(_ event: AnalyticsEvent, enriched: Bool = false) throws {
    // Cheap checks first: `track` costs microseconds, and Foundation's trimming or counting characters cost several.
    guard event.name.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
      throw EventTrackerError(.invalidEvent, "An event name cannot be empty or blank.")
    }
    guard event.name.utf8.count <= configuration.maxNameLength || event.name.count <= configuration.maxNameLength else {
      throw EventTrackerError(
        .invalidEvent,
        "An event name has at most \(configuration.maxNameLength) characters; this one has "
          + "\(event.name.count).")
    }
    // Year 0 to 9999: a timestamp in nanoseconds by mistake would not fit the wire's milliseconds.
    let seconds = event.timestamp.timeIntervalSince1970
    guard seconds.isFinite, (-62_135_596_800...253_402_300_799).contains(seconds) else {
      throw EventTrackerError(.invalidEvent, "The timestamp of \(event.name) is not a date between years 1 and 9999.")
    }
    try check(event.properties, "properties", of: event)
    try check(event.traits, "traits", of: event)
    try check(event.context, "context", of: event, allowance: enriched ? EventTrackerConfiguration.contextAllowance : 0)
  }

  /// Throws unless `object` has a JSON form within the size cap.
  private func check(
    _ object: [String: JSONValue], _ label: String, of event: AnalyticsEvent, allowance: Int = 0
  ) throws {
    guard !object.isEmpty else { return }
    guard object.values.allSatisfy(\.isFinite) else {
      throw EventTrackerError(.invalidEvent, "The \(label) of \(event.name) hold a number JSON cannot carry.")
    }
    let (fits, size) = JSONValue.fits(object, within: configuration.maxPropertiesBytes + allowance)
    guard fits else {
      throw EventTrackerError(
        .invalidEvent,
        "The \(label) of \(event.name) take up to \(size) bytes; at most "
          + "\(configuration.maxPropertiesBytes + allowance).")
    }
  }
}
