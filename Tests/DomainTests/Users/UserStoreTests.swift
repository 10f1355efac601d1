import Foundation
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS U1: a thread-safe cache with read-your-writes, kept in a file across restarts (U2).
/// The cache and its file are local: they need no server.
@Suite struct UserStoreTests {
  @Test("Upsert, all users in first-stored order, exact nickname, by id, remove all")
  func basics() {
    let store = UserStore()
    store.upsert(User(userId: "b", nickname: "Bee"))
    store.upsert(User(userId: "a", nickname: "Ann"))
    store.upsert(User(userId: "c", nickname: "ann"))
    store.upsert(User(userId: "b", nickname: "Ann"))
    #expect(store.users().map(\.userId) == ["b", "a", "c"])
    #expect(store.users(nickname: "Ann").map(\.userId) == ["b", "a"])
    #expect(store.user(id: "b")?.nickname == "Ann")
    #expect(store.user(id: "z") == nil)
    store.removeAll()
    #expect(store.users().isEmpty)
  }

  @Test("A write the file cannot take is reported by writeFailure, kept in memory, and cleared by the next good one")
  func writeFailure() throws {
    let directory = try temporaryDirectory()
    let blocker = directory.appendingPathComponent("blocker")
    try Data("a file where the folder should be".utf8).write(to: blocker)
    let store = UserStore(file: blocker.appendingPathComponent("users.json"))
    store.upsert(User(userId: "a", nickname: "Ann"))
    #expect(store.writeFailure?.contains("blocker") == true, "\(store.writeFailure ?? "nil")")
    #expect(store.user(id: "a")?.nickname == "Ann")

    let file = directory.appendingPathComponent("users.json")
    let good = UserStore(file: file)
    good.upsert(User(userId: "b"))
    #expect(good.writeFailure == nil)
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  @Test("Every write is visible to the read that follows it, while 8 tasks write and read at once")
  func readYourWrites() async {
    let store = UserStore()
    let misses = Recorder<String>()
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<8 {
        group.addTask {
          for index in 0..<500 {
            let user = User(userId: "w\(writer)-\(index % 50)", nickname: "n\(index)")
            store.upsert(user)
            // The read starts after the write returned: it must see this write or a later one of the same task.
            if store.user(id: user.userId)?.nickname != user.nickname { misses.record(user.userId) }
            _ = store.users(nickname: "n\(index)")
          }
        }
      }
    }
    #expect(misses.elements.isEmpty)
    #expect(store.count == 8 * 50)
  }

  @Test("A store on a file survives a restart with its owner; removing all empties the file")
  func persistence() throws {
    let file = try temporaryDirectory().appendingPathComponent("users.json")
    let first = UserStore(file: file)
    first.claim(for: "app-A")
    first.upsert(contentsOf: [User(userId: "a", nickname: "A", profileURL: "p"), User(userId: "b")])

    let second = UserStore(file: file)
    #expect(second.users() == [User(userId: "a", nickname: "A", profileURL: "p"), User(userId: "b")])
    #expect(second.applicationId == "app-A")
    second.removeAll()
    #expect(UserStore(file: file).count == 0)
    #expect(UserStore(file: file).applicationId == "app-A")
  }

  @Test("claim(for:) deletes another application's users; an upsert for the previous owner is refused")
  func claim() {
    let store = UserStore()
    #expect(!store.claim(for: "app-A"))
    store.upsert(User(userId: "a"))
    #expect(!store.claim(for: "app-A"), "the same application keeps its users")
    #expect(store.count == 1)
    #expect(store.claim(for: "app-B"))
    #expect(store.count == 0)
    #expect(!store.upsert(contentsOf: [User(userId: "late")], ifOwnedBy: "app-A"))
    #expect(store.upsert(contentsOf: [User(userId: "b")], ifOwnedBy: "app-B"))
    #expect(store.users().map(\.userId) == ["b"])
  }

  @Test("An unreadable file starts the store empty, and the next write replaces it")
  func corruptFile() throws {
    let file = try temporaryDirectory().appendingPathComponent("users.json")
    try Data("not json".utf8).write(to: file)
    let store = UserStore(file: file)
    #expect(store.count == 0)
    store.upsert(User(userId: "a"))
    #expect(UserStore(file: file).users() == [User(userId: "a")])
  }

  @Test("Users decode leniently: nickname and profile_url may be null or absent; unknown fields are ignored")
  func lenientDecoding() throws {
    let json = #"[{"user_id":"a","nickname":null,"metadata":{}},{"user_id":"b","profile_url":"p","is_online":true}]"#
    let users = try JSONDecoder().decode([User].self, from: Data(json.utf8))
    #expect(users == [User(userId: "a"), User(userId: "b", profileURL: "p")])
  }

  @Test("The Sendbird-compatible storage is the same store seen as SBUser")
  func sendbirdStorage() {
    let storage = SendbirdUserStorage()
    storage.upsertUser(SBUser(userId: "a", nickname: "Ann"))
    #expect(storage.getUser(for: "a") == SBUser(userId: "a", nickname: "Ann"))
    #expect(storage.getUsers(for: "Ann").map(\.userId) == ["a"])
    #expect(storage.getUsers().count == 1)
    #expect(storage.store.user(id: "a")?.nickname == "Ann")
  }
}
