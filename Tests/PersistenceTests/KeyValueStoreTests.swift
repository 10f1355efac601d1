import Foundation
import Persistence
import Testing

/// REQUIREMENTS A6: non-sensitive settings in a key-value store that survives a restart.
@Suite("KeyValueStore", .timeLimit(.minutes(3)))
struct KeyValueStoreTests {
  struct Settings: Codable, Equatable {
    var applicationID: String
    var launches: Int
  }

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-kv-\(UUID().uuidString)")

  @Test("Values round-trip, bare values too, and survive reopening the file")
  func roundTripAndRestart() throws {
    let url = directory.appendingPathComponent("settings.json")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileKeyValueStore(url: url)
    try store.set(Settings(applicationID: "app-1", launches: 3), forKey: "settings")
    try store.set("app-1", forKey: "applicationID")
    try store.set(42, forKey: "answer")
    try store.removeValue(forKey: "answer")

    let reopened = try FileKeyValueStore(url: url)
    #expect(try reopened.value(Settings.self, forKey: "settings") == Settings(applicationID: "app-1", launches: 3))
    #expect(try reopened.value(String.self, forKey: "applicationID") == "app-1")
    #expect(try reopened.value(Int.self, forKey: "answer") == nil)
  }

  @Test("Bad input and bad data are typed errors: an empty key, a wrong type, a corrupt file")
  func errors() throws {
    let url = directory.appendingPathComponent("settings.json")
    defer { try? FileManager.default.removeItem(at: directory) }
    for store in [try FileKeyValueStore(url: url), InMemoryKeyValueStore()] as [any KeyValueStore] {
      #expect(throws: PersistenceError.self) { try store.set(1, forKey: "") }
      try store.set("text", forKey: "k")
      let wrongType = #expect(throws: PersistenceError.self) { _ = try store.value(Int.self, forKey: "k") }
      #expect(wrongType?.kind == .decoding)
    }
    try Data("not json".utf8).write(to: url)
    let corrupt = #expect(throws: PersistenceError.self) { _ = try FileKeyValueStore(url: url) }
    #expect(corrupt?.kind == .corrupted)
  }
}
