import Persistence

/// How an ``EventTracker`` stores, batches, retries and bounds its work, and in which format it delivers (REQUIREMENTS
/// E4, E5, E13, E14).
public struct EventTrackerConfiguration: Sendable, Hashable {
  /// The most events in one upload: 1–500 (the server's limit). Default 100.
  public var maxBatchCount: Int
  /// The most bytes in one upload's body, under the server's 1 MiB (Segment's API: 500 KB, whatever this says).
  /// Default 1,000,000.
  public var maxBatchBytes: Int
  /// Upload as soon as this many events were tracked since the last upload. Default 20.
  public var flushCount: Int
  /// Upload what is pending at least this often. Default 30 seconds.
  public var flushInterval: Duration
  /// The first retry delay's ceiling; each further failure doubles it, up to ``maxRetryDelay``. Default 1 second.
  public var baseRetryDelay: Duration
  /// The longest retry delay. Default 5 minutes.
  public var maxRetryDelay: Duration
  /// How long an upload may wait for data before it counts as failed and is retried (the request's
  /// `timeoutInterval`, an idle timeout; a transport that ignores it is not bounded by it). Default 30 seconds: a
  /// connection the server dropped can otherwise hold delivery up for the transport's own timeout (on Linux,
  /// URLSession may not notice a dropped reused connection until then).
  public var uploadTimeout: Duration
  /// The most events pending on disk. Default 100,000.
  public var capacity: Int
  /// What tracking beyond ``capacity`` does: by default the oldest pending events are dropped, and counted.
  public var overflow: OverflowPolicy
  /// The most dead-lettered events kept for inspection, and for ``EventTracker/requeueDeadLetters(_:)``. Default
  /// 10,000: with events held to ``maxPropertiesBytes``, at most about 330 MB of disk, and a few MB for usual events.
  /// Those kept stay; a refused event that finds them full is not kept, and is reported
  /// (``FlushReport/notKeptCount``, ``DeliveryStatus/deadLettersDropped``).
  public var deadLetterCapacity: Int
  /// The longest event name, in characters. Default 256.
  public var maxNameLength: Int
  /// The most bytes an event's properties may take as JSON. Default 32 KiB.
  public var maxPropertiesBytes: Int
  /// Whether the tracker uploads on its own (events left by an earlier run at once, then by count, interval and
  /// reconnection), or only when `flush()` asks, and for the retries that follow. Default `true`; a command-line tool
  /// that stores in one run and delivers in another sets `false`.
  public var deliversOnItsOwn: Bool
  /// What a tracked event survives once `track` returned. Default `Durability.survivesCrash`: the app being killed
  /// or crashing loses nothing, a power loss may lose the last events, and `track` costs microseconds instead of an
  /// `fsync` (Decision 0017). `Durability.survivesPowerLoss` for events worth an `fsync` each.
  public var durability: Durability
  /// The time without events after which the next one starts a new session (`context.sessionId`). Default 30
  /// minutes.
  public var sessionTimeout: Duration
  /// The API the tracker delivers to: Keel's ingestion API, or any endpoint that speaks the Segment HTTP Tracking
  /// API. Default ``EventWireFormat/keel``.
  public var wireFormat: EventWireFormat

  /// A configuration; each default is the property's.
  public init(
    maxBatchCount: Int = 100, maxBatchBytes: Int = 1_000_000, flushCount: Int = 20,
    flushInterval: Duration = .seconds(30), baseRetryDelay: Duration = .seconds(1),
    maxRetryDelay: Duration = .seconds(300), uploadTimeout: Duration = .seconds(30), capacity: Int = 100_000,
    overflow: OverflowPolicy = .dropOldest,
    deadLetterCapacity: Int = 10_000, maxNameLength: Int = 256, maxPropertiesBytes: Int = 32 * 1_024,
    deliversOnItsOwn: Bool = true, durability: Durability = .survivesCrash, sessionTimeout: Duration = .seconds(1_800),
    wireFormat: EventWireFormat = .keel
  ) {
    self.maxBatchCount = maxBatchCount
    self.maxBatchBytes = maxBatchBytes
    self.flushCount = flushCount
    self.flushInterval = flushInterval
    self.baseRetryDelay = baseRetryDelay
    self.maxRetryDelay = maxRetryDelay
    self.uploadTimeout = uploadTimeout
    self.capacity = capacity
    self.overflow = overflow
    self.deadLetterCapacity = deadLetterCapacity
    self.maxNameLength = maxNameLength
    self.maxPropertiesBytes = maxPropertiesBytes
    self.deliversOnItsOwn = deliversOnItsOwn
    self.durability = durability
    self.sessionTimeout = sessionTimeout
    self.wireFormat = wireFormat
  }

  /// The most bytes an upload takes: ``maxBatchBytes``, or less where the API takes less (Segment's 500 KB).
  var batchBytes: Int { Swift.min(maxBatchBytes, wireFormat.maxBatchBytes) }

  /// What the built-in enrichment and the plugins may add to an event's context beyond ``maxPropertiesBytes``.
  static let contextAllowance = 4_096

  /// The most bytes one event can take on the wire: its properties, traits and context at their caps, its name, ids
  /// and the field names.
  var largestEventBytes: Int { maxPropertiesBytes * 3 + Self.contextAllowance + maxNameLength * 4 + 1_024 }

  /// Throws unless every value is in range.
  func validate() throws {
    func require(_ condition: Bool, _ message: String) throws {
      guard condition else { throw EventTrackerError(.invalidConfiguration, message) }
    }
    try require((1...500).contains(maxBatchCount), "maxBatchCount must be 1–500, not \(maxBatchCount).")
    try require(
      batchBytes >= largestEventBytes && maxBatchBytes <= 1_048_576,
      "maxBatchBytes must hold one largest event (\(largestEventBytes) bytes) within the API's "
        + "\(wireFormat.maxBatchBytes), and stay within 1 MiB, not \(maxBatchBytes).")
    try require(sessionTimeout > .zero, "sessionTimeout must be positive.")
    try require(flushCount >= 1, "flushCount must be at least 1, not \(flushCount).")
    try require(flushInterval > .zero, "flushInterval must be positive.")
    try require(
      baseRetryDelay > .zero && maxRetryDelay >= baseRetryDelay, "The retry delays must be positive and ordered.")
    try require(uploadTimeout > .zero, "uploadTimeout must be positive.")
    try require(capacity >= 1 && deadLetterCapacity >= 1, "The capacities must be at least 1.")
    try require(maxNameLength >= 1 && maxPropertiesBytes >= 2, "The event limits must be positive.")
  }
}
