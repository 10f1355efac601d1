import Clocks
import Foundation
import KeelConcurrency
import Networking
import Persistence
import TestSupport

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An event tracker on a real queue file, a scripted ingestion API and a test clock whose time is also the wall
/// clock the queue's retry dates are stored in.
struct EventsHarness {
  static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
  /// A fixed app and device, so that the tests do not depend on the machine.
  static let context = EventContext(
    app: ["name": "Demo", "version": "1.2.0", "build": "45"], osName: "Linux", osVersion: "6.1.0",
    deviceModel: "x86_64", locale: "en-US", timeZone: "Europe/Paris")

  let clock: TestClock<Duration>
  let server: FakeIngestion
  let monitor: ManualNetworkMonitor
  let queueURL: URL
  let tracker: EventTracker
  let start: TestClock<Duration>.Instant

  init(
    configuration: EventTrackerConfiguration = EventTrackerConfiguration(), queueURL: URL? = nil,
    clock: TestClock<Duration> = TestClock(), server: FakeIngestion = FakeIngestion(),
    monitor: ManualNetworkMonitor = ManualNetworkMonitor(.online), random: Double = 0.5,
    origin: TestClock<Duration>.Instant? = nil, settings: (any KeyValueStore)? = nil, plugins: [any EventPlugin] = []
  ) throws {
    self.clock = clock
    self.server = server
    self.monitor = monitor
    self.queueURL = try queueURL ?? temporaryDirectory().appendingPathComponent("events.sqlite")
    // The wall clock is `epoch` at `origin`: a restarted tracker on the same test clock passes the first one's.
    let start = origin ?? clock.now
    self.start = start
    tracker = try EventTracker(
      baseURL: URL(string: "http://events.test")!, apiToken: "token", queueURL: self.queueURL,
      settings: try settings
        ?? FileKeyValueStore(url: self.queueURL.deletingLastPathComponent().appendingPathComponent("settings.json")),
      transport: server,
      monitor: monitor, configuration: configuration, clock: clock,
      now: { Self.epoch.addingTimeInterval(DeliveryBackoff.seconds(start.duration(to: clock.now))) },
      random: { random }, context: Self.context, plugins: plugins)
  }

  /// The harness's wall-clock time now.
  var now: Date { EventsHarness.epoch.addingTimeInterval(DeliveryBackoff.seconds(start.duration(to: clock.now))) }

  /// Tracks events named `prefix0`, `prefix1`, …
  func track(_ count: Int, prefix: String = "e") async throws {
    for index in 0..<count { try await tracker.track(AnalyticsEvent(name: "\(prefix)\(index)")) }
  }
}

/// A scripted `/v1/events/batch`: answers each upload with the next scripted status (200 once the script is used
/// up), and records the event names of every upload.
final class FakeIngestion: HTTPTransport {
  enum Answer: Sendable {
    case status(Int, headers: [String: String] = [:], message: String = "")
    case offline
    /// The transport's own cancellation, as URLSession reports a rejected certificate.
    case cancelled
    /// A 200 with an HTML page, as a captive portal answers.
    case html200
    /// A status with an HTML page, as a proxy answers: no reason of the API's own.
    case proxy(Int)
    /// 413 when the batch has more than `n` events, 200 otherwise.
    case tooLargeAbove(Int)
    /// 400 when the batch holds an event named `name`, 200 otherwise.
    case malformed(String)
    /// 413 when the batch holds an event named `name`, 200 otherwise.
    case tooLarge(String)
  }

  private struct State {
    var script: [Answer] = []
    var standing: Answer?
    var uploads: [[String]] = []
    var sizes: [Int] = []
    var targets: [(path: String, headers: [String: String])] = []
  }

  private let state = Locked(State())
  /// Every upload waits here before it is answered; open by default.
  let gate = Gate()

  /// Answers the next uploads with `answers`, in order.
  func script(_ answers: Answer...) { state.withLock { $0.script += answers } }

  /// Answers every upload with `answer` until `nil`, once the script is used up.
  func always(_ answer: Answer?) { state.withLock { $0.standing = answer } }

  /// The names in each upload, in order.
  var uploads: [[String]] { state.withLock { $0.uploads } }

  /// The path and headers of each upload.
  var targets: [(path: String, headers: [String: String])] { state.withLock { $0.targets } }

  /// The byte size of each upload's body.
  var sizes: [Int] { state.withLock { $0.sizes } }

  /// Every name uploaded, in order.
  var uploaded: [String] { uploads.flatMap { $0 } }

  func send(_ request: URLRequest) async throws -> RawResponse {
    let body = request.httpBody ?? Data()
    let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    // Keel's `events` with their `name`s, or Segment's `batch` with their `event`s, `name`s or `identify`.
    let events = (json?["events"] ?? json?["batch"]) as? [[String: Any]]
    let names = events?.compactMap { ($0["event"] ?? $0["name"]) as? String ?? ($0["type"] as? String) } ?? []
    await gate.pass()
    let answer = state.withLock { state -> Answer in
      state.uploads.append(names)
      state.sizes.append(body.count)
      state.targets.append((request.url?.path ?? "", request.allHTTPHeaderFields ?? [:]))
      return state.script.isEmpty ? (state.standing ?? .status(200)) : state.script.removeFirst()
    }
    switch answer {
    case .offline:
      throw URLError(.notConnectedToInternet)
    case .cancelled:
      throw URLError(.cancelled)
    case .html200:
      return RawResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>Hi</html>".utf8))
    case .proxy(let status):
      return RawResponse(
        status: status, headers: ["Content-Type": "text/html"], body: Data("<html>Bad request</html>".utf8))
    case .status(let status, let headers, let message):
      return Self.response(status, names.count, headers: headers, message: message)
    case .tooLargeAbove(let limit):
      return Self.response(names.count > limit ? 413 : 200, names.count, message: "Too large.")
    case .malformed(let poison):
      return Self.response(names.contains(poison) ? 400 : 200, names.count, message: "Bad event \(poison).")
    case .tooLarge(let poison):
      return Self.response(names.contains(poison) ? 413 : 200, names.count, message: "\(poison) is too large.")
    }
  }

  private static func response(
    _ status: Int, _ count: Int, headers: [String: String] = [:], message: String = ""
  ) -> RawResponse {
    // The batch route's own error shape (SandboxAPI §3): `E01` for a malformed batch, `E<status>` otherwise.
    let code = status == 400 ? "E01" : "E\(status)"
    let body =
      (200..<300).contains(status)
      ? #"{"accepted":\#(count),"duplicates":0}"# : #"{"errorCode":"\#(code)","message":"\#(message)"}"#
    return RawResponse(
      status: status, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: Data(body.utf8))
  }
}
