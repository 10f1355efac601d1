import Clocks
import Foundation
import TestSupport
import Testing

@testable import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS E6: online and offline inferred from transport outcomes, probing with backoff while offline, and a
/// stream per subscriber; all on a TestClock.
@Suite("NetworkMonitor", .timeLimit(.minutes(3)))
struct NetworkMonitorTests {
  let clock = TestClock()
  /// When each probe ran, in milliseconds since the test started.
  let probes = Recorder<Int64>()

  /// A monitor whose probes fail until the `reachableAtProbe`th, which succeeds.
  private func monitor(
    reachableAtProbe reachable: Int = .max,
    unreachableErrors: Set<URLError.Code> = InferredNetworkMonitor.defaultUnreachableErrors
  ) -> InferredNetworkMonitor {
    let (clock, probes, start) = (clock, probes, clock.now)
    return InferredNetworkMonitor(
      probe: {
        probes.record(clock.milliseconds(since: start))
        return probes.count >= reachable
      },
      unreachableErrors: unreachableErrors, clock: clock)
  }

  private static func request() -> URLRequest {
    URLRequest(url: URL(string: "https://api.example.com/v3/users")!)
  }

  /// Sends one request through `monitor`'s transport, answered by `answer`; the outcome itself does not matter here.
  private static func send(through monitor: InferredNetworkMonitor, _ answer: @escaping FakeTransport.Answer) async {
    _ = try? await MonitoredTransport(FakeTransport(answer), reportingTo: monitor).send(request())
  }

  private static func fail(_ code: URLError.Code) -> FakeTransport.Answer {
    { _ in throw URLError(code) }
  }

  /// Checks that no probe runs until `wait` has passed, and that one does at `wait`.
  private func expectProbe(after wait: Duration) async {
    let before = probes.count
    #expect(await clock.sleeperArrived())
    await clock.advance(by: wait - .milliseconds(1))
    await settle()
    #expect(probes.count == before, "no probe 1 ms before \(wait)")
    await clock.advance(by: .milliseconds(1))
    #expect(await eventually { probes.count == before + 1 }, "a probe at \(wait)")
  }

  @Test("It starts online, and a new stream says so first")
  func startsOnline() async {
    let monitor = monitor()
    #expect(monitor.status == .online)
    let listener = Listener(monitor.statusUpdates())
    #expect(await eventually { listener.statuses.count == 1 })
    #expect(listener.statuses.elements == [.online])
  }

  @Test(
    "A transport failure that means unreachable makes it offline, and the failure is passed on unchanged",
    arguments: [
      URLError.Code.notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
      .networkConnectionLost, .timedOut,
    ])
  func unreachableGoesOffline(code: URLError.Code) async {
    let monitor = monitor()
    let listener = Listener(monitor.statusUpdates())
    let transport = MonitoredTransport(FakeTransport(Self.fail(code)), reportingTo: monitor)

    let error = await #expect(throws: URLError.self) { try await transport.send(Self.request()) }

    #expect(error?.code == code)
    #expect(monitor.status == .offline)
    #expect(await eventually { listener.statuses.elements == [.online, .offline] })
  }

  @Test("Only the configured failures count: others, and errors that are not URLErrors, leave it online")
  func onlyConfiguredFailuresCount() async {
    let monitor = monitor(unreachableErrors: [.timedOut])
    for code in [URLError.Code.cannotConnectToHost, .badServerResponse, .secureConnectionFailed] {
      await Self.send(through: monitor, Self.fail(code))
    }
    await Self.send(through: monitor) { _ in
      throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: ""))
    }
    #expect(monitor.status == .online)

    await Self.send(through: monitor, Self.fail(.timedOut))
    #expect(monitor.status == .offline)
  }

  @Test("A NetworkError from the client counts as its URLError does")
  func networkErrorCounts() async throws {
    let monitor = monitor()
    let client = HTTPClient(transport: FakeTransport(Self.fail(.notConnectedToInternet)))
    let error = await #expect(throws: NetworkError.self) { try await client.send(.data(TestRouter.user(id: "a"))) }
    monitor.recordFailure(try #require(error))
    #expect(monitor.status == .offline)
  }

  @Test("Any HTTP response, a 503 too, means online: it ends an outage, and changes nothing while online")
  func anyResponseIsOnline() async {
    let monitor = monitor()
    let listener = Listener(monitor.statusUpdates())

    await Self.send(through: monitor, FakeTransport.json(503, "{}"))
    #expect(monitor.status == .online)
    await Self.send(through: monitor, Self.fail(.cannotConnectToHost))
    #expect(monitor.status == .offline)
    await Self.send(through: monitor, FakeTransport.json(503, "<html>busy</html>"))
    #expect(monitor.status == .online)

    #expect(await eventually { listener.statuses.count == 3 })
    await settle()
    #expect(listener.statuses.elements == [.online, .offline, .online])
  }

  @Test("Cancellation is not a network failure, whatever error it comes with")
  func cancellationIsNotOffline() async {
    // `.cancelled` listed on purpose: cancellation never counts, even when configured.
    let monitor = monitor(unreachableErrors: InferredNetworkMonitor.defaultUnreachableErrors.union([.cancelled]))
    await Self.send(through: monitor) { _ in throw CancellationError() }
    await Self.send(through: monitor, Self.fail(.cancelled))
    #expect(monitor.status == .online)

    // A transfer cut short by cancelling its task, which then fails with a code that would otherwise count.
    let transport = MonitoredTransport(
      FakeTransport({ _ in
        withUnsafeCurrentTask { $0?.cancel() }
        throw URLError(.timedOut)
      }),
      reportingTo: monitor)
    let task = Task { try await transport.send(Self.request()) }
    await #expect(throws: URLError.self) { try await task.value }  // the failure still reaches the caller
    #expect(monitor.status == .online)
  }

  @Test("While offline it probes after 1 s, then twice as long each time up to 30 s, until a probe succeeds")
  func probesWithBackoff() async {
    let monitor = monitor(reachableAtProbe: 7)
    let listener = Listener(monitor.statusUpdates())
    monitor.recordFailure(URLError(.cannotConnectToHost))

    for wait in [1, 2, 4, 8, 16, 30] {
      await expectProbe(after: .seconds(wait))
      #expect(monitor.status == .offline)
    }
    await expectProbe(after: .seconds(30))

    #expect(probes.elements == [1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000])
    #expect(await eventually { monitor.status == .online })
    #expect(await eventually { listener.statuses.elements == [.online, .offline, .online] })
    // Probing stopped: nothing more, however long the wait.
    await clock.advance(by: .seconds(3_600))
    await settle()
    #expect(probes.count == 7)
  }

  @Test("The backoff is configurable")
  func configurableBackoff() async {
    let (clock, probes, start) = (clock, probes, clock.now)
    let monitor = InferredNetworkMonitor(
      probe: {
        probes.record(clock.milliseconds(since: start))
        return false
      },
      initialProbeDelay: .milliseconds(250), maxProbeDelay: .seconds(1), clock: clock)
    monitor.recordFailure(URLError(.timedOut))
    for wait in [250, 500, 1_000, 1_000] {
      await expectProbe(after: .milliseconds(wait))
    }
    #expect(probes.elements == [250, 750, 1_750, 2_750])
  }

  @Test("Further failures while offline neither start a second probe loop nor restart the backoff")
  func oneProbeLoop() async {
    let monitor = monitor()
    for _ in 0..<3 { monitor.recordFailure(URLError(.cannotConnectToHost)) }
    await expectProbe(after: .seconds(1))
    await settle()
    #expect(probes.count == 1)

    monitor.recordFailure(URLError(.timedOut))
    await expectProbe(after: .seconds(2))
    await settle()
    #expect(probes.elements == [1_000, 3_000])
  }

  @Test("A response while probing ends the outage at once and stops the probe loop; a new outage starts a new one")
  func responseEndsProbing() async {
    let monitor = monitor()
    monitor.recordFailure(URLError(.networkConnectionLost))
    #expect(await clock.sleeperArrived())

    await Self.send(through: monitor, FakeTransport.json(200, "{}"))
    #expect(monitor.status == .online)
    await clock.advance(by: .seconds(3_600))
    await settle()
    #expect(probes.count == 0)

    monitor.recordFailure(URLError(.networkConnectionLost))
    await expectProbe(after: .seconds(1))
    await settle()
    #expect(probes.count == 1)
  }

  @Test("A probe that answers after its outage ended cannot end the next outage")
  func staleProbeIgnored() async {
    let (clock, probes, start) = (clock, probes, clock.now)
    let (answer, answerNow) = AsyncStream.makeStream(of: Bool.self)
    let monitor = InferredNetworkMonitor(
      probe: {
        probes.record(clock.milliseconds(since: start))
        guard probes.count == 1 else { return false }
        // The first probe ignores cancellation and answers when the test says, as a slow request might.
        return await Task { await answer.first { _ in true } ?? false }.value
      },
      clock: clock)
    monitor.recordFailure(URLError(.timedOut))
    await expectProbe(after: .seconds(1))

    monitor.recordResponse()
    monitor.recordFailure(URLError(.timedOut))
    answerNow.yield(true)
    await settle()

    #expect(monitor.status == .offline)
    await expectProbe(after: .seconds(1))
  }

  @Test("Each subscriber gets a stream of its own, which stops listening when its task is cancelled")
  func independentSubscribers() async {
    let monitor = monitor()
    let first = Listener(monitor.statusUpdates())
    let second = Listener(monitor.statusUpdates())
    #expect(monitor.subscriberCount == 2)

    monitor.recordFailure(URLError(.cannotFindHost))
    #expect(await eventually { first.statuses.count == 2 && second.statuses.count == 2 })

    first.task.cancel()
    #expect(await eventually { first.ended.count == 1 })
    #expect(await eventually { monitor.subscriberCount == 1 })

    monitor.recordResponse()
    #expect(await eventually { second.statuses.count == 3 })
    await settle()
    #expect(first.statuses.elements == [.online, .offline])
    #expect(second.statuses.elements == [.online, .offline, .online])
    #expect(second.ended.count == 0)
  }

  @Test("No stream sees the same status twice in a row")
  func noDuplicates() async {
    let monitor = monitor()
    let listener = Listener(monitor.statusUpdates())
    for _ in 0..<3 { monitor.recordResponse() }
    for _ in 0..<3 { monitor.recordFailure(URLError(.timedOut)) }
    for _ in 0..<3 { monitor.recordResponse() }
    for _ in 0..<2 { monitor.recordFailure(URLError(.dnsLookupFailed)) }
    let late = Listener(monitor.statusUpdates())

    #expect(await eventually { listener.statuses.count == 4 && late.statuses.count == 1 })
    await settle()
    #expect(listener.statuses.elements == [.online, .offline, .online, .offline])
    #expect(late.statuses.elements == [.offline])
  }

  @Test("A dropped stream stops listening")
  func droppedStreamUnregisters() async {
    let monitor = monitor()
    let kept = monitor.statusUpdates()
    _ = monitor.statusUpdates()
    #expect(await eventually { monitor.subscriberCount == 1 })
    withExtendedLifetime(kept) {}
  }

  @Test("Dropping the monitor cancels its probe loop and ends every stream")
  func deinitStopsEverything() async {
    var monitor: InferredNetworkMonitor? = monitor()
    weak let weakMonitor = monitor
    let listener = Listener(monitor!.statusUpdates())
    monitor?.recordFailure(URLError(.cannotConnectToHost))
    #expect(await clock.sleeperArrived())

    monitor = nil
    #expect(weakMonitor == nil, "the probe loop does not keep the monitor alive")
    #expect(await eventually { listener.ended.count == 1 })
    await clock.advance(by: .seconds(3_600))
    await settle()
    #expect(probes.count == 0)
  }

  @Test("The transport probe succeeds on any response and fails on a transport error")
  func transportProbe() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}"), Self.fail(.cannotConnectToHost))
    let url = try #require(URL(string: "https://api.example.com/v3"))
    let probe = InferredNetworkMonitor.probe(url, timeout: .seconds(5), over: transport)

    #expect(await probe())
    #expect(await !probe())
    let sent = try #require(transport.requests.first)
    #expect(sent.url == url)
    #expect(sent.httpMethod == "HEAD")
    #expect(sent.timeoutInterval == 5)
  }

  @Test("A manual monitor publishes what it is told, once per change")
  func manualMonitor() async {
    let monitor = ManualNetworkMonitor()
    let listener = Listener(monitor.statusUpdates())
    monitor.status = .offline
    monitor.status = .offline
    monitor.status = .online
    #expect(monitor.status == .online)
    #expect(await eventually { listener.statuses.count == 3 })
    await settle()
    #expect(listener.statuses.elements == [.online, .offline, .online])
    #expect(ManualNetworkMonitor(.offline).status == .offline)
  }
}

/// Reads a status stream in a task of its own, recording what arrives and whether the stream ended.
private struct Listener {
  let statuses: Recorder<NetworkStatus>
  let ended: Recorder<Void>
  let task: Task<Void, Never>

  init(_ updates: AsyncStream<NetworkStatus>) {
    let (statuses, ended) = (Recorder<NetworkStatus>(), Recorder<Void>())
    self.statuses = statuses
    self.ended = ended
    task = Task {
      for await status in updates { statuses.record(status) }
      ended.record(())
    }
  }
}
