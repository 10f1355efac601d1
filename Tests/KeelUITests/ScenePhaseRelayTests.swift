import KeelConcurrency
import KeelUI
import Testing

/// What a relay called, in order, with a call that the test holds open.
private final class Calls: Sendable {
  private let log = Locked<[String]>([])
  /// Released by the test to let the first suspension finish.
  let firstSuspension = OneShot<Void>()

  var made: [String] { log.withLock { $0 } }

  func record(_ call: String) { log.withLock { $0.append(call) } }
}

@Suite("Scene phase relay", .timeLimit(.minutes(1)))
struct ScenePhaseRelayTests {
  @Test("Changes reach the socket in the order they happened, each after the one before finished")
  func ordered() async {
    let calls = Calls()
    let relay = ScenePhaseRelay(
      resume: { calls.record("resume") },
      suspend: {
        calls.record("suspend started")
        await calls.firstSuspension.value()
        calls.record("suspend finished")
      })

    let background = relay.sceneChanged(active: false)
    let active = relay.sceneChanged(active: true)
    // The resume was asked for while the suspension is held open: it must wait for it, not overtake it.
    while calls.made.isEmpty { await Task.yield() }
    #expect(calls.made == ["suspend started"])
    _ = calls.firstSuspension.fulfill(())
    await background?.value
    await active?.value
    #expect(calls.made == ["suspend started", "suspend finished", "resume"])
  }

  @Test("A change that repeats the last one makes no call")
  func repeated() async {
    let calls = Calls()
    let relay = ScenePhaseRelay(resume: { calls.record("resume") }, suspend: { calls.record("suspend") })
    await relay.sceneChanged(active: true)?.value
    #expect(relay.sceneChanged(active: true) == nil)
    await relay.sceneChanged(active: false)?.value
    #expect(relay.sceneChanged(active: false) == nil)
    #expect(calls.made == ["resume", "suspend"])
  }
}
