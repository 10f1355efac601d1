import Clocks
import Domain
import Foundation
import Networking
import TestSupport
import Testing

/// REQUIREMENTS A8: concurrent loads of one URL share one request, and cancellation is per caller.
/// `ImageLoaderIntegrationTests` shows 100 loads sharing one request, and one or both of two callers cancelled, against
/// the Sandbox, and loads of two URLs not waiting for each other. A caller cancelled before it asks sends nothing, so
/// needs no server.
@Suite("ImageLoader coalescing", .timeLimit(.minutes(3)))
struct ImageLoaderCoalescingTests {
  @Test("Ten concurrent loads of one URL share one request and all get its image")
  func coalescing() async throws {
    // GIVEN a server whose answer is held until the test opens the gate
    let gate = Gate(open: false)
    let harness = try ImageLoaderHarness(ImageAnswer.held(by: gate, ImageAnswer.image("png-1")))
    let loader = harness.loader

    // WHEN ten callers load the URL while the request is under way
    let callers = (0..<10).map { _ in TaskProbe { try await loader.data(for: ImageLoaderHarness.url) } }
    #expect(await eventually { harness.transport.requests.count == 1 && loader.statistics.coalescedJoins == 9 })
    gate.open()

    // THEN every caller gets the image from the one request
    for caller in callers { #expect(await caller.value() == Data("png-1".utf8)) }
    #expect(harness.transport.requests.count == 1)
    #expect(
      loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.coalescedJoins = 9
        })
  }

  @Test("Loads of different URLs do not wait for each other")
  func differentURLsAreSeparate() async throws {
    let gate = Gate(open: false)
    let harness = try ImageLoaderHarness(
      ImageAnswer.held(by: gate, ImageAnswer.image("held")), ImageAnswer.image("other"))
    let loader = harness.loader
    let other = try #require(URL(string: "https://images.example.com/avatars/bo.png"))

    let held = TaskProbe { try await loader.data(for: ImageLoaderHarness.url) }
    #expect(await eventually { harness.transport.requests.count == 1 })
    let second = try await loader.data(for: other)

    #expect(second == Data("other".utf8))
    #expect(!held.isFinished)
    gate.open()
    #expect(await held.value() == Data("held".utf8))
    #expect(loader.statistics == .with { $0.networkLoads = 2 })
  }

  @Test("Cancelling one of two callers returns it at once; the shared request goes on for the other")
  func cancellingOneCallerKeepsTheRequest() async throws {
    // GIVEN a request the server answers after one second, and two callers waiting on it
    let waiting = try await TwoCallersWaiting(for: "png-1")
    let (harness, loader, server, cancellations) = (
      waiting.harness, waiting.harness.loader, waiting.server, waiting.cancellations
    )
    let (first, second) = (waiting.first, waiting.second)

    // WHEN the first caller is cancelled
    first.cancel()

    // THEN it leaves at once with CancellationError, while the request is not cancelled
    #expect(await first.error() is CancellationError)
    await settle()
    #expect(cancellations.count == 0)
    #expect(!second.isFinished)

    // AND when the server answers, the second caller gets the image
    await server.advance(by: .seconds(1))
    #expect(await second.value() == Data("png-1".utf8))
    #expect(cancellations.count == 0, "the shared request ran to its answer")
    #expect(harness.transport.requests.count == 1)
    #expect(
      loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.coalescedJoins = 1
        })
  }

  @Test("Cancelling every caller cancels the request; a later caller starts a new one")
  func cancellingAllCallersCancelsTheRequest() async throws {
    // GIVEN a request the server answers after one second, and two callers waiting on it
    let waiting = try await TwoCallersWaiting(for: "never", then: ImageAnswer.image("png-2"))
    let (harness, loader, cancellations) = (waiting.harness, waiting.harness.loader, waiting.cancellations)
    let (first, second) = (waiting.first, waiting.second)

    // WHEN both callers are cancelled
    first.cancel()
    #expect(await first.error() is CancellationError)
    second.cancel()
    #expect(await second.error() is CancellationError)

    // THEN the transport sees the cancellation, and the load counts as cancelled, not failed
    #expect(await eventually { cancellations.count == 1 })
    #expect(cancellations.elements == ["CancellationError"])
    #expect(await eventually { loader.statistics.cancelledLoads == 1 })

    // AND a caller that comes after starts a new request
    let data = try await loader.data(for: ImageLoaderHarness.url)
    #expect(data == Data("png-2".utf8))
    #expect(harness.transport.requests.count == 2)
    #expect(
      loader.statistics
        == .with {
          $0.cancelledLoads = 1
          $0.networkLoads = 1
          $0.coalescedJoins = 1
        })
  }

  @Test("A caller cancelled before it asks gets CancellationError and starts nothing")
  func cancelledBeforeAsking() async throws {
    let harness = try ImageLoaderHarness()
    let loader = harness.loader
    let gate = Gate(open: false)

    let caller = TaskProbe {
      await gate.pass()
      return try await loader.data(for: ImageLoaderHarness.url)
    }
    caller.cancel()
    gate.open()

    #expect(await caller.error() is CancellationError)
    #expect(harness.transport.requests.isEmpty)
    #expect(loader.statistics == ImageLoaderStatistics())
  }
}

/// One request the server answers after a second on its own clock, and two callers of the same URL waiting on it:
/// the first started the load, the second joined it.
private struct TwoCallersWaiting {
  let server = TestClock()
  let cancellations = Recorder<String>()
  let harness: ImageLoaderHarness
  let first: TaskProbe<Data>
  let second: TaskProbe<Data>

  /// Waits until both callers wait on the one request and the server holds its answer, `image`; later requests get
  /// `later`.
  init(for image: String, then later: FakeTransport.Answer..., name: String = #function) async throws {
    let answer = ImageAnswer.after(.seconds(1), on: server, cancellations: cancellations, ImageAnswer.image(image))
    let harness = try ImageLoaderHarness(answers: [answer] + later, name: name)
    let loader = harness.loader
    self.harness = harness
    first = TaskProbe { try await loader.data(for: ImageLoaderHarness.url) }
    second = TaskProbe { try await loader.data(for: ImageLoaderHarness.url) }
    #expect(await eventually { loader.statistics.coalescedJoins == 1 })
    #expect(await server.sleeperArrived())
  }
}
