import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import Persistence
import TestSupport
import Testing

/// ChatFeature, and the chat in AppFeature, through exhaustive TestStores (REQUIREMENTS C1–C6, F1–F3).
/// `AppChatIntegrationTests` runs the live wiring against the Sandbox: sign-in, the last workspace's channels, a live
/// conversation, back and sign-out; `ChatSyncIntegrationTests` has background and foreground at the service. The
/// exhaustive check of every state change, in order, needs a chat the test feeds: a real server's timing cannot fix it.
@Suite(.timeLimit(.minutes(3))) struct ChatFeatureTests {
  @Test("The DM list follows the workspace; a channel opens as the conversation; back closes it; the scene phase")
  @MainActor
  func composed() async {
    let chat = FakeChat()
    let store = TestStore(initialState: ChatFeature.State(me: "user-demo"), reducer: ChatFeature(client: chat.client))
    await store.send(.view(.task))
    await store.receiveFed(.channels(.view(.task)))
    chat.workspaces.yield([FakeChat.keel], to: "workspaces")
    await store.receiveFed(.channels(.internal(.workspacesChanged([FakeChat.keel], lastUsed: nil)))) {
      $0.channels.workspaces = [FakeChat.keel]
      $0.channels.workspaceID = "w1"
    }
    await store.receiveFed(.channels(.delegate(.workspaceChanged("w1")))) {
      $0.directMessages = DirectMessageListFeature.State(workspaceID: "w1", me: "user-demo")
    }
    await store.receiveFed(.directMessages(.view(.task)))
    await store.receiveFed(.directMessages(.response(.membersLoaded([FakeChat.ada, FakeChat.bob, FakeChat.me])))) {
      $0.directMessages?.members = [FakeChat.ada, FakeChat.bob]
    }
    chat.channels.yield([FakeChat.general, FakeChat.random], to: "w1")
    await store.receiveFed(
      .channels(.internal(.channelsChanged([FakeChat.general, FakeChat.random], workspaceID: "w1")))
    ) {
      $0.channels.channels = [FakeChat.general, FakeChat.random]
    }

    await store.send(.channels(.view(.channelTapped(FakeChat.general))))
    await store.receiveFed(.channels(.delegate(.openConversation(FakeChat.general)))) {
      $0.conversation = ConversationFeature.State(conversation: FakeChat.general, me: "user-demo")
    }
    await store.receiveFed(.conversation(.view(.task)))
    let live = ConversationSnapshot(messages: [ConversationFeatureTests.welcome], status: .live)
    chat.snapshots.yield(live, to: "c2")
    await store.receiveFed(.conversation(.internal(.snapshot(live)))) {
      $0.conversation?.messages = [ConversationFeatureTests.welcome]
      $0.conversation?.status = .live
    }

    await store.send(.view(.scenePhaseChanged(.background))) { $0.isActive = false }
    await store.send(.view(.scenePhaseChanged(.inactive)))  // still not active: nothing more
    await store.send(.view(.scenePhaseChanged(.active))) { $0.isActive = true }
    #expect(await chat.lifecycle.recorded(count: 2) == ["background", "foreground"])

    await store.send(.conversation(.view(.backTapped)))
    await store.receiveFed(.conversation(.delegate(.dismissed))) { $0.conversation = nil }
    #expect(chat.reads.elements.map(\.message) == ["m1"])
    #expect(await chat.snapshots.ended.recorded(count: 1) == ["c2"], "the conversation closed")

    chat.workspaces.finish("workspaces")
    chat.channels.finish("w1")
    chat.rooms.finish("w1")
    await store.finish()
  }

  @Test("A quick background and foreground reach the chat in that order, the second once the first has finished")
  @MainActor
  func lifecycleInOrder() async {
    let chat = FakeChat()
    chat.backgroundGate.close()
    let store = TestStore(initialState: ChatFeature.State(me: "user-demo"), reducer: ChatFeature(client: chat.client))
    await store.send(.view(.scenePhaseChanged(.background))) { $0.isActive = false }
    await store.send(.view(.scenePhaseChanged(.active))) { $0.isActive = true }
    await chat.backgroundGate.waiters(1)
    await settle()
    #expect(chat.lifecycle.elements.isEmpty, "the foreground call waits for the background call to finish")
    chat.backgroundGate.open()
    #expect(await chat.lifecycle.recorded(count: 2) == ["background", "foreground"])
    await store.finish()
  }

  @Test("Signed in, the app shows the last workspace's channels and a conversation; expiry tears the chat down")
  @MainActor
  func appSignInChatExpire() async {
    let demo = FakeSessions.demo
    let sessions = FakeSessions(initial: .loggedIn(demo))
    let server = FakeUserServer()
    let chat = FakeChat()
    let app = AppFeature(
      session: SessionFeature(client: sessions.client),
      search: UserSearchFeature(search: { _ in [] }, clock: server.clock), userImport: server.feature,
      signUp: SignUpFeature(client: sessions.client), chat: ChatFeature(client: chat.client))
    let store = TestStore(initialState: AppFeature.State(), reducer: app)
    await store.send(.view(.scenePhaseChanged(.background)))  // nobody signed in: no chat to tell
    await store.send(.view(.task))
    await store.receiveFed(.session(.view(.task)))
    await store.receiveFed(.session(.internal(.sessionChanged(.loggedIn(demo))))) {
      $0.session.status = .signedIn(demo)
    }
    await store.receiveFed(.session(.delegate(.signedIn(demo)))) {
      $0.search = UserSearchFeature.State()
      $0.chat = ChatFeature.State(me: demo.id)
    }
    await store.receiveFed(.chat(.view(.task)))
    await store.receiveFed(.chat(.channels(.view(.task))))
    chat.workspaces.yield([FakeChat.keel], to: "workspaces")
    await store.receiveFed(.chat(.channels(.internal(.workspacesChanged([FakeChat.keel], lastUsed: nil))))) {
      $0.chat?.channels.workspaces = [FakeChat.keel]
      $0.chat?.channels.workspaceID = "w1"
    }
    await store.receiveFed(.chat(.channels(.delegate(.workspaceChanged("w1"))))) {
      $0.chat?.directMessages = DirectMessageListFeature.State(workspaceID: "w1", me: demo.id)
    }
    await store.receiveFed(.chat(.directMessages(.view(.task))))
    await store.receiveFed(
      .chat(.directMessages(.response(.membersLoaded([FakeChat.ada, FakeChat.bob, FakeChat.me]))))
    ) {
      $0.chat?.directMessages?.members = [FakeChat.ada, FakeChat.bob]
    }
    await store.send(.chat(.channels(.view(.channelTapped(FakeChat.general)))))
    await store.receiveFed(.chat(.channels(.delegate(.openConversation(FakeChat.general))))) {
      $0.chat?.conversation = ConversationFeature.State(conversation: FakeChat.general, me: demo.id)
    }
    await store.receiveFed(.chat(.conversation(.view(.task))))
    await store.send(.view(.scenePhaseChanged(.background)))
    await store.receiveFed(.chat(.view(.scenePhaseChanged(.background)))) { $0.chat?.isActive = false }

    // WHEN the session expires
    sessions.publish(.expired)

    // THEN the chat goes, and everything it followed stops: the conversation closes, the lists stop
    await store.receiveFed(.session(.internal(.sessionChanged(.expired)))) {
      $0.session.status = .signedOut
      $0.session.errorMessage = SessionFeature.expiredMessage
    }
    await store.receiveFed(.session(.delegate(.sessionExpired))) {
      $0.search = nil
      $0.chat = nil
    }
    #expect(await chat.snapshots.ended.recorded(count: 1) == ["c2"], "the conversation closed")
    #expect(await chat.channels.ended.recorded(count: 1) == ["w1"])
    #expect(await chat.rooms.ended.recorded(count: 1).count == 1)
    #expect(await chat.workspaces.ended.recorded(count: 1) == ["workspaces"])
    sessions.end()
    await store.finish()
  }
}
