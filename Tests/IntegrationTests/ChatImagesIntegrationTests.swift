import Chat
import Domain
import Foundation
import KeelConcurrency
import Logging
import Sandbox
import Testing

extension ChatAgainstSandbox {
  /// Chat and profile images load through the account's `ImageLoader` with the session's token (SandboxAPI §7).
  @Suite("Chat images through the image loader", .timeLimit(.minutes(3)))
  struct ChatImagesIntegrationTests {
    @Test(
      "A member's image: network, memory, disk, then a 304 once stale; a non-member refused, never from another's cache"
    )
    func images() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let transport = TransportKind.nio.transport
      let time = Locked(Date())
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: transport, now: { time.withLock { $0 } })
      // Cat is in no workspace of Ann's; she signs in on Bob's device later.
      let cat = try await ChatUser.signUp("cat", on: sandbox, transport: transport)
      await cat.chat.shutDown()
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      _ = try await bob.chat.join(general.id)
      let photo = try pngFile(in: ann.directory, filler: 5)
      let bytes = try Data(contentsOf: photo)
      let sent = await ann.chat.outcome(of: try await ann.chat.send("look", images: [photo], to: general.id))
      let path = try #require(sent.images.first)
      let profile = try #require(try await ann.sessions.updateProfileImage(photo).profileImage)

      // Bob's loads: the network, then memory, then disk; his token went with each request.
      let loader = try bob.chat.imageLoader
      #expect(try await bob.chat.image(at: path) == bytes)
      #expect(try await bob.chat.image(at: path) == bytes)
      loader.clearMemory()
      #expect(try await bob.chat.image(at: path) == bytes)
      #expect(try await bob.chat.image(at: profile) == bytes, "a profile image, the same way")
      let loaded = loader.statistics
      #expect(loaded.networkLoads == 2 && loaded.memoryHits == 1 && loaded.diskHits == 1, "\(loaded)")
      // Two hours on, past its max-age: revalidated with its ETag, and the server answers 304.
      time.withLock { $0 += 7_200 }
      #expect(try await bob.chat.image(at: path) == bytes)
      #expect(loader.statistics.revalidationsNotModified == 1, "\(loader.statistics)")
      await #expect(throws: ChatError.self, "not the backend's") {
        try await bob.chat.image(at: "https://elsewhere.example/x.png")
      }

      // Cat signs in on Bob's device: the server refuses her (not a member), and Bob's cache never answers her.
      try await bob.sessions.logout()
      _ = try await bob.sessions.login(email: "cat@example.com", password: "password-cat")
      let refused = await #expect(throws: ImageLoaderError.self) { try await bob.chat.image(at: path) }
      #expect(refused?.requestFailure?.statusCode == 404)
      #expect(try bob.chat.imageLoader !== loader, "her own loader")
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }
  }
}
