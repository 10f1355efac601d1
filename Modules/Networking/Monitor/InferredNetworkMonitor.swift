import Foundation
import KeelConcurrency
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A ``NetworkMonitor`` that infers the status from how requests go, and probes while offline: works on every
/// platform, and is the one to use where there is no `NWPathMonitor` (Linux).
///
/// ```swift
/// import Foundation
///
/// let baseURL = URL(string: "https://api.example.com")!
/// let monitor = InferredNetworkMonitor(probe: InferredNetworkMonitor.probe(baseURL, over: URLSessionTransport()))
/// let client = HTTPClient(transport: MonitoredTransport(URLSessionTransport(), reportingTo: monitor))
/// ```
///
/// - It starts ``NetworkStatus/online``: online until proven otherwise.
/// - One transport failure whose code is in ``unreachableErrors`` makes it ``NetworkStatus/offline``. One is enough:
///   a false alarm costs at most ``initialProbeDelay``, as the first probe ends it. Cancellation never counts.
/// - Any HTTP response, whatever its status, makes it ``NetworkStatus/online``: the server was reached.
/// - While offline, it calls `probe` after ``initialProbeDelay``, then after twice as long each time, up to
///   ``maxProbeDelay``, until a probe succeeds. One probe loop at a time; it stops as soon as the monitor is online,
///   whether a probe or a response said so.
///
/// The probe loop holds the monitor weakly, and `deinit` cancels it and ends every status stream: dropping the
/// monitor stops everything, with no `stop()` to forget.
public final class InferredNetworkMonitor: NetworkMonitor {
  /// Checks whether the server can be reached now; `true` if it can.
  public typealias Probe = @Sendable () async -> Bool

  /// The transport failures that mean "unreachable" by default: no connection, no host, no DNS, a dropped
  /// connection, a timeout.
  public static let defaultUnreachableErrors: Set<URLError.Code> = [
    .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
    .timedOut,
  ]

  /// The transport failures that make the monitor offline; others (a bad URL, a TLS error) say nothing about the
  /// network. `URLError.cancelled` never counts, even if listed.
  public let unreachableErrors: Set<URLError.Code>
  /// The wait before the first probe of an outage.
  public let initialProbeDelay: Duration
  /// The longest wait between two probes.
  public let maxProbeDelay: Duration

  private let probeOnce: Probe
  private let sleep: @Sendable (Duration) async throws -> Void
  private let logger: Logger
  private let broadcast = StatusBroadcast(.online)
  /// The probe loop of the current outage, and the outage's number, so that a loop from an earlier outage cannot end
  /// a later one. Changed together with the status: taken before the broadcast's lock, never after.
  private let probing = Locked<(loop: Task<Void, Never>?, outage: Int)>((nil, 0))

  /// A monitor that starts online.
  ///
  /// - Parameters:
  ///   - probe: Checks whether the server can be reached; see ``probe(_:method:timeout:over:)``.
  ///   - unreachableErrors: The transport failures that make the monitor offline.
  ///   - initialProbeDelay: The wait before the first probe of an outage; 1 s by default. Must be positive.
  ///   - maxProbeDelay: The longest wait between two probes; 30 s by default, and never less than
  ///     `initialProbeDelay`.
  ///   - clock: The clock probe delays are measured on; pass a `TestClock` in tests.
  ///   - logger: Where the monitor logs when it goes offline and back online; discards everything by default.
  public init(
    probe: @escaping Probe,
    unreachableErrors: Set<URLError.Code> = defaultUnreachableErrors,
    initialProbeDelay: Duration = .seconds(1),
    maxProbeDelay: Duration = .seconds(30),
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "keel.networking.monitor", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    precondition(initialProbeDelay > .zero, "initialProbeDelay must be positive")
    self.probeOnce = probe
    self.unreachableErrors = unreachableErrors
    self.initialProbeDelay = initialProbeDelay
    self.maxProbeDelay = max(maxProbeDelay, initialProbeDelay)
    self.sleep = { try await clock.sleep(for: $0) }
    self.logger = logger
  }

  deinit {
    probing.withLock { $0.loop }?.cancel()
    broadcast.finish()
  }

  /// The status now.
  public var status: NetworkStatus { broadcast.current }

  /// A new stream of the status: the status now, then every change. See ``NetworkMonitor/statusUpdates()``.
  public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }

  /// Records that a request got a response, whatever its status: the monitor is online, and stops probing.
  public func recordResponse() {
    markOnline(endingOutage: nil)
  }

  /// Records that a request failed with `error`: the monitor goes offline and starts probing if `error` is a
  /// `URLError` (or a ``NetworkError`` carrying one) whose code is in ``unreachableErrors``; anything else is ignored.
  ///
  /// Call it only for requests whose task was not cancelled: a cancelled transfer may fail with any code.
  /// ``MonitoredTransport`` does that for you.
  public func recordFailure(_ error: any Error) {
    guard let code = Self.urlErrorCode(of: error), code != .cancelled, unreachableErrors.contains(code) else { return }
    let wentOffline = probing.withLock { probing in
      guard broadcast.publish(.offline) else { return false }
      probing.outage += 1
      probing.loop = startProbing(outage: probing.outage)
      return true
    }
    if wentOffline { logger.info("Offline: a request failed with URLError \(code.rawValue); probing until reachable.") }
  }

  /// How many status streams are listening; for tests.
  var subscriberCount: Int { broadcast.subscriberCount }

  private static func urlErrorCode(of error: any Error) -> URLError.Code? {
    if let error = error as? URLError { return error.code }
    return (error as? NetworkError)?.urlError?.code
  }

  /// Goes online, and cancels the probe loop. `outage` is set when a probe loop calls: it is ignored if that outage
  /// is over.
  private func markOnline(endingOutage outage: Int?) {
    let (wentOnline, loop) = probing.withLock { probing -> (Bool, Task<Void, Never>?) in
      if let outage, outage != probing.outage { return (false, nil) }
      guard broadcast.publish(.online) else { return (false, nil) }
      defer { probing.loop = nil }
      return (true, probing.loop)
    }
    // Outside the lock: cancelling runs the loop's cancellation handlers. A loop that called this is about to return.
    loop?.cancel()
    if wentOnline { logger.info("Online again.") }
  }

  private func startProbing(outage: Int) -> Task<Void, Never> {
    let (probe, sleep) = (probeOnce, self.sleep)
    let (initialDelay, maxDelay) = (initialProbeDelay, maxProbeDelay)
    return Task { [weak self] in
      var delay = initialDelay
      while true {
        // Throws once cancelled: back online, or the monitor is gone.
        do { try await sleep(delay) } catch { return }
        if await probe() {
          self?.markOnline(endingOutage: outage)
          return
        }
        delay = min(delay * 2, maxDelay)
      }
    }
  }
}
