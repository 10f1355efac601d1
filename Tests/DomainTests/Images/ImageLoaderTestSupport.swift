import Clocks
import Domain
import Foundation
import Networking
import Persistence
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A loader on a fake transport and a test clock, with its cache in a fresh directory.
struct ImageLoaderHarness {
  /// Where the wall clock starts: any fixed date.
  static let epoch = Date(timeIntervalSince1970: 1_700_000_000)
  static let url = URL(string: "https://images.example.com/avatars/ana.png?size=64")!

  let clock: TestClock<Duration>
  let directory: URL
  let transport: FakeTransport
  let loader: ImageLoader

  /// A loader whose requests `answers` answer in order.
  init(
    _ answers: FakeTransport.Answer..., clock: TestClock<Duration> = TestClock(), directory: URL? = nil,
    limits: ImageCacheLimits = ImageCacheLimits(), name: String = #function
  ) throws {
    try self.init(answers: answers, clock: clock, directory: directory, limits: limits, name: name)
  }

  /// A loader whose requests `answers` answer in order, in `directory` or else a fresh one named for the test.
  init(
    answers: [FakeTransport.Answer], clock: TestClock<Duration> = TestClock(), directory: URL? = nil,
    limits: ImageCacheLimits = ImageCacheLimits(), name: String = #function
  ) throws {
    self.clock = clock
    self.directory = try directory ?? temporaryDirectory(name)
    transport = FakeTransport(answers)
    loader = try ImageLoader(
      client: HTTPClient(transport: transport), directory: self.directory, limits: limits,
      now: Self.wallClock(clock))
  }

  /// The same directory and clock with a new loader, as after an app restart: the old loader's disk level is
  /// closed first, as one directory has one cache at a time.
  func restarted(_ answers: FakeTransport.Answer...) throws -> ImageLoaderHarness {
    try loader.cache.disk.close()
    return try ImageLoaderHarness(answers: answers, clock: clock, directory: directory)
  }

  /// The loader's time: ``epoch`` plus however far `clock` is from its origin, so that a restarted loader on the
  /// same clock reads the same time.
  static func wallClock(_ clock: TestClock<Duration>) -> @Sendable () -> Date {
    {
      let (seconds, attoseconds) = TestClock<Duration>.Instant().duration(to: clock.now).components
      return epoch.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
  }

  /// What the loader's clock says now.
  var now: Date { Self.wallClock(clock)() }

  /// The `If-None-Match` of each request sent, `nil` for a request without one.
  var validatorsSent: [String?] { transport.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } }
}

/// Scripted server answers.
enum ImageAnswer {
  /// A 200 with `body`, and `ETag` and `Cache-Control` when given.
  static func image(
    _ body: String, etag: String? = "\"v1\"", cacheControl: String? = "max-age=60"
  ) -> FakeTransport.Answer {
    { _ in RawResponse(status: 200, headers: headers(etag: etag, cacheControl: cacheControl), body: Data(body.utf8)) }
  }

  /// A 304 with `ETag` and `Cache-Control` when given.
  static func notModified(etag: String? = "\"v1\"", cacheControl: String? = "max-age=60") -> FakeTransport.Answer {
    { _ in RawResponse(status: 304, headers: headers(etag: etag, cacheControl: cacheControl)) }
  }

  /// An error status with the body the Sandbox's image route gives (SandboxAPI §4): its own 404, or an injected fault.
  static func status(_ status: Int) -> FakeTransport.Answer {
    let message = status == 404 ? "Image not found." : "Injected fault."
    return { _ in
      RawResponse(
        status: status, headers: ["Content-Type": "application/json"],
        body: Data(#"{"errorCode":"E\#(status)","message":"\#(message)"}"#.utf8))
    }
  }

  /// No answer: the connection failed.
  static func offline() -> FakeTransport.Answer {
    { _ in throw URLError(.notConnectedToInternet) }
  }

  /// `answer`, once `gate` opens.
  static func held(by gate: Gate, _ answer: @escaping FakeTransport.Answer) -> FakeTransport.Answer {
    { request in
      await gate.pass()
      return try await answer(request)
    }
  }

  /// `answer`, after `delay` on `clock`; a cancellation while waiting is recorded in `cancellations`.
  static func after(
    _ delay: Duration, on clock: TestClock<Duration>, cancellations: Recorder<String>,
    _ answer: @escaping FakeTransport.Answer
  ) -> FakeTransport.Answer {
    { request in
      do {
        try await clock.sleep(for: delay)
      } catch {
        cancellations.record(String(describing: type(of: error)))
        throw error
      }
      return try await answer(request)
    }
  }

  private static func headers(etag: String?, cacheControl: String?) -> [String: String] {
    var headers = ["Content-Type": "image/png"]
    headers["ETag"] = etag
    headers["Cache-Control"] = cacheControl
    return headers
  }
}

extension ImageLoaderStatistics {
  /// Statistics with the given counters, the others zero: for comparing a whole snapshot at once.
  static func with(_ changes: (inout ImageLoaderStatistics) -> Void) -> ImageLoaderStatistics {
    var statistics = ImageLoaderStatistics()
    changes(&statistics)
    return statistics
  }
}
