import Foundation
import Testing

@testable import Sandbox

/// The user lookup writes a user's JSON field by field; it must be the same bytes as the user's `JSONValue` encoded.
@Suite("Sandbox user encoding")
struct PlatformUserEncodingTests {
  @Test(
    "A user written field by field is the same bytes as its JSON value encoded",
    arguments: [
      PlatformUser(
        userID: "alice", nickname: "Alice", profileURL: "https://example.com/a.png", accessToken: "tok",
        metadata: ["team": "ios", "b": "2", "a": "1"], createdAt: 1_764_000_000, sequence: 0),
      PlatformUser(
        userID: "ünï \"quoted\"\\", nickname: "line\nbreak\ttab\u{1}", profileURL: "", accessToken: "",
        metadata: [:], createdAt: 0, sequence: 7),
    ])
  func sameBytes(user: PlatformUser) {
    #expect(user.encoded == user.json.encoded)
    #expect(String(decoding: user.encoded, as: UTF8.self) == String(decoding: user.json.encoded, as: UTF8.self))
  }
}
