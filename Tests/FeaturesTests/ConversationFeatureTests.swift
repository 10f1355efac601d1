import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import Persistence
import TestSupport
import Testing

/// ConversationFeature through an exhaustive TestStore, on a chat the test feeds (REQUIREMENTS C3–C5, F2–F3).
/// `AppChatIntegrationTests` opens a live conversation against the Sandbox that sends, receives and is marked read on
/// leaving; `ChatServiceIntegrationTests` shows a refused send resent. Failures, refusals and paging are checked here
/// state by state, in an order that only a chat the test feeds can fix.
@Suite(.timeLimit(.minutes(3))) struct ConversationFeatureTests {
  static let welcome = FakeChat.message("m1", in: "c2", from: "user-ada", "Welcome", at: 1)
  static let hello = FakeChat.message("m6", in: "c2", from: "user-ada", "Hello", at: 6)

  @MainActor
  static func store(_ chat: FakeChat) -> TestStore<ConversationFeature.State, ConversationFeature.Action> {
    TestStore(
      initialState: ConversationFeature.State(conversation: FakeChat.general, me: "user-demo"),
      reducer: ConversationFeature(client: chat.client))
  }

  @Test("Stored messages at once, then live, then a pushed one; leaving marks the newest read, then dismisses")
  @MainActor
  func storedLiveLeave() async {
    let chat = FakeChat()
    let store = Self.store(chat)
    await store.send(.view(.task))
    let stored = ConversationSnapshot(messages: [Self.welcome], status: .stored)
    chat.snapshots.yield(stored, to: "c2")
    await store.receiveFed(.internal(.snapshot(stored))) { $0.messages = [Self.welcome] }
    let live = ConversationSnapshot(messages: [Self.welcome], status: .live)
    chat.snapshots.yield(live, to: "c2")
    await store.receiveFed(.internal(.snapshot(live))) { $0.status = .live }
    let pushed = ConversationSnapshot(messages: [Self.welcome, Self.hello], status: .live)
    chat.snapshots.yield(pushed, to: "c2")
    await store.receiveFed(.internal(.snapshot(pushed))) { $0.messages = [Self.welcome, Self.hello] }

    await store.send(.view(.backTapped))
    await store.receiveFed(.delegate(.dismissed))
    #expect(chat.reads.elements.map(\.conversation) == ["c2"])
    #expect(chat.reads.elements.map(\.message) == ["m6"], "the newest sent message")
    chat.snapshots.finish("c2")
    await store.finish()
  }

  @Test("Sending clears the draft and shows the message pending then failed; resend sends it again")
  @MainActor
  func sendPendingFailedResend() async {
    let chat = FakeChat()
    let store = Self.store(chat)
    await store.send(.view(.task))
    await store.send(.view(.sendTapped))  // nothing to send: ignored
    await store.send(.view(.draftChanged("Hi all"))) { $0.draft = "Hi all" }
    await store.send(.view(.sendTapped)) { $0.draft = "" }
    let pending = FakeChat.message("pending-1", in: "c2", from: "user-demo", "Hi all", at: 100, state: .pending)
    let showing = ConversationSnapshot(messages: [Self.welcome, pending], status: .live)
    chat.snapshots.yield(showing, to: "c2")
    await store.receiveFed(.internal(.snapshot(showing))) {
      $0.messages = [Self.welcome, pending]
      $0.status = .live
    }
    var failed = pending
    failed.state = .failed
    failed.failureReason = "E10: too many images"
    let refused = ConversationSnapshot(messages: [Self.welcome, failed], status: .live)
    chat.snapshots.yield(refused, to: "c2")
    await store.receiveFed(.internal(.snapshot(refused))) { $0.messages = [Self.welcome, failed] }
    await store.send(.view(.resendTapped(failed)))
    // The send's effect runs on a task of its own: waited for, as the resend is, not read before it may have run.
    #expect(await chat.sends.recorded(count: 1).map(\.text) == ["Hi all"])
    #expect(await chat.resends.recorded(count: 1).count == 1)
    chat.snapshots.finish("c2")
    await store.finish()
  }

  @Test("A draft the chat refuses comes back with the reason; nothing typed is lost")
  @MainActor
  func refusedDraftComesBack() async {
    let chat = FakeChat()
    chat.failures.withLock { $0["send"] = ChatError(.invalidInput, "A message's text has at most 10000 characters.") }
    let store = Self.store(chat)
    let picture = URL(fileURLWithPath: "/tmp/cat.png")
    await store.send(.view(.draftChanged("Long text"))) { $0.draft = "Long text" }
    await store.send(.view(.imagesPicked([picture]))) { $0.draftImages = [picture] }
    await store.send(.view(.sendTapped)) {
      $0.draft = ""
      $0.draftImages = []
    }
    await store.receiveFed(
      .response(
        .sendFailed(
          text: "Long text", images: [picture], message: "A message's text has at most 10000 characters."))
    ) {
      $0.draft = "Long text"
      $0.draftImages = [picture]
      $0.errorMessage = "A message's text has at most 10000 characters."
    }
    await store.finish()
  }

  @Test("At most 5 images in a draft; one can be taken off; older pages load one at a time until none remain")
  @MainActor
  func imagesAndOlderPages() async {
    let chat = FakeChat()
    chat.olderPages.withLock { $0 = [true, false] }
    let store = Self.store(chat)
    let pictures = (1...6).map { URL(fileURLWithPath: "/tmp/\($0).png") }
    await store.send(.view(.imagesPicked(Array(pictures.prefix(4))))) { $0.draftImages = Array(pictures.prefix(4)) }
    await store.send(.view(.imagesPicked(Array(pictures.suffix(2))))) {
      $0.draftImages = Array(pictures.prefix(5))
      $0.errorMessage = "A message carries at most 5 images."
    }
    await store.send(.view(.imageRemoved(at: 0))) { $0.draftImages = Array(pictures[1..<5]) }
    await store.send(.view(.imageRemoved(at: 9)))

    await store.send(.view(.loadOlderTapped)) { $0.isLoadingOlder = true }
    await store.send(.view(.loadOlderTapped))  // one page at a time
    await store.receiveFed(.response(.olderLoaded(hasMore: true))) { $0.isLoadingOlder = false }
    await store.send(.view(.loadOlderTapped)) { $0.isLoadingOlder = true }
    await store.receiveFed(.response(.olderLoaded(hasMore: false))) {
      $0.isLoadingOlder = false
      $0.hasOlder = false
    }
    await store.send(.view(.loadOlderTapped))  // none remain
    await store.finish()
  }

  @Test("A page that fails to load says why and can be tried again")
  @MainActor
  func olderPageFails() async {
    let chat = FakeChat()
    chat.failures.withLock { $0["loadOlder"] = ChatError(.requestFailed, "Cannot reach the server.") }
    let store = Self.store(chat)
    await store.send(.view(.loadOlderTapped)) { $0.isLoadingOlder = true }
    await store.receiveFed(.response(.olderFailed(message: "Cannot reach the server."))) {
      $0.isLoadingOlder = false
      $0.errorMessage = "Cannot reach the server."
    }
    await store.finish()
  }
}
