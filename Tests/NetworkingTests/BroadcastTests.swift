import KeelConcurrency
import Testing

/// The value holder behind every status stream (a network monitor's, a session's, a conversation's).
struct BroadcastTests {
  @Test func aStreamGetsTheCurrentValueThenEachChangeOnce() async {
    let broadcast = Broadcast(1)
    let stream = broadcast.updates()
    broadcast.publish(1)
    broadcast.publish(2)
    broadcast.update { $0 += 1 }
    broadcast.finish()
    var seen: [Int] = []
    for await value in stream { seen.append(value) }
    #expect(seen == [1, 2, 3])
  }

  /// A reader that subscribes after the owner finished gets the last value and the end, not a stream that never ends.
  @Test func aStreamAskedForAfterTheEndGetsTheLastValueAndEnds() async {
    let broadcast = Broadcast(1)
    broadcast.publish(7)
    broadcast.finish()
    var seen: [Int] = []
    for await value in broadcast.updates() { seen.append(value) }
    #expect(seen == [7])
    #expect(broadcast.subscriberCount == 0)
  }
}
