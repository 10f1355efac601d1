import Foundation
import Testing

@testable import Chat

/// The rule that keeps typing indicators cheap: at most one "typing" a second per conversation, whatever the keys.
struct TypingBookTests {
  @Test func atMostOneTypingEventASecondPerConversation() {
    var book = TypingBook()
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    var said: [Double] = []
    for tenth in 0..<30 where book.sayTyping(in: "c1", at: start.addingTimeInterval(Double(tenth) / 10), interval: 1) {
      said.append(Double(tenth) / 10)
    }
    #expect(said == [0, 1, 2], "one a second out of 30 keystrokes in 3 s")
    let other = book.sayTyping(in: "c2", at: start.addingTimeInterval(2.95), interval: 1)
    #expect(other, "each conversation its own")
    let back = book.sayTyping(in: "c1", at: start.addingTimeInterval(-5), interval: 1)
    #expect(back, "a clock that went back counts as time passed")
  }
}
