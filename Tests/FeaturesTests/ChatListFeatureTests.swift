import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import Persistence
import TestSupport
import Testing

/// ChannelListFeature and DirectMessageListFeature through exhaustive TestStores, on a chat the test feeds
/// (REQUIREMENTS C1–C2, F2–F3). `AppChatIntegrationTests` shows the live lists against the Sandbox: the last
/// workspace, its joined and unjoined channels, a DM. The exhaustive check of every state change, in order, needs the
/// fake, as a real server's timing cannot fix that order.
@Suite(.timeLimit(.minutes(3))) struct ChatListFeatureTests {
  @Test("The last workspace is chosen from the stored list; its channels, stored then the server's; switching keeps it")
  @MainActor
  func lastWorkspaceThenSwitch() async {
    let chat = FakeChat()
    chat.lastWorkspace.withLock { $0 = "w9" }
    let store = TestStore(initialState: ChannelListFeature.State(), reducer: ChannelListFeature(client: chat.client))
    await store.send(.view(.task))
    chat.workspaces.yield([FakeChat.lab, FakeChat.keel], to: "workspaces")
    await store.receiveFed(.internal(.workspacesChanged([FakeChat.lab, FakeChat.keel], lastUsed: "w9"))) {
      $0.workspaces = [FakeChat.keel, FakeChat.lab]
      $0.workspaceID = "w9"
    }
    await store.receiveFed(.delegate(.workspaceChanged("w9")))
    chat.channels.yield([], to: "w9")
    await store.receiveFed(.internal(.channelsChanged([], workspaceID: "w9")))
    chat.workspaces.yield([FakeChat.lab, FakeChat.keel], to: "workspaces")  // the server's: the same
    await store.receiveFed(.internal(.workspacesChanged([FakeChat.lab, FakeChat.keel], lastUsed: "w9")))

    await store.send(.view(.workspaceSelected("w1"))) { $0.workspaceID = "w1" }
    await store.receiveFed(.delegate(.workspaceChanged("w1")))
    chat.channels.yield([FakeChat.general], to: "w1")
    await store.receiveFed(.internal(.channelsChanged([FakeChat.general], workspaceID: "w1"))) {
      $0.channels = [FakeChat.general]
    }
    chat.channels.yield([FakeChat.general, FakeChat.random], to: "w1")
    await store.receiveFed(.internal(.channelsChanged([FakeChat.general, FakeChat.random], workspaceID: "w1"))) {
      $0.channels = [FakeChat.general, FakeChat.random]
    }
    #expect(await chat.lastWorkspaceSets.recorded(until: { $0.contains("w1") }).last == "w1", "kept for next time")
    #expect(
      await chat.channels.ended.recorded(count: 1) == ["w9"], "the last workspace's channels are no longer followed")
    await store.send(.view(.workspaceSelected("w1")))  // already shown
    await store.send(.view(.workspaceSelected("nope")))  // not one of the user's

    chat.workspaces.finish("workspaces")
    chat.channels.finish("w1")
    await store.finish()
  }

  @Test("Tapping a joined channel opens it; one not joined is joined from the list; a failed join says why")
  @MainActor
  func openAndJoin() async {
    let chat = FakeChat()
    let store = TestStore(
      initialState: ChannelListFeature.State(
        workspaces: [FakeChat.keel], workspaceID: "w1", channels: [FakeChat.general, FakeChat.random]),
      reducer: ChannelListFeature(client: chat.client))
    await store.send(.view(.channelTapped(FakeChat.general)))
    await store.receiveFed(.delegate(.openConversation(FakeChat.general)))

    var joined = FakeChat.random
    joined.joined = true
    await store.send(.view(.channelTapped(FakeChat.random))) { $0.joining = ["c3"] }
    await store.receiveFed(.response(.joined(joined))) {
      $0.joining = []
      $0.channels = [FakeChat.general, joined]
    }
    #expect(chat.joins.elements == ["c3"])

    chat.failures.withLock { $0["join"] = ChatError(.refused, "Cannot join the channel: E404.") }
    await store.send(.view(.channelTapped(FakeChat.random))) { $0.joining = ["c3"] }
    await store.receiveFed(.response(.joinFailed(channelID: "c3", message: "Cannot join the channel: E404."))) {
      $0.joining = []
      $0.errorMessage = "Cannot join the channel: E404."
    }
    await store.finish()
  }

  @Test("A workspace just made shows at once, and a list the server answered before it existed does not take it away")
  @MainActor
  func workspaceAddedSurvivesStaleList() async {
    let chat = FakeChat()
    let store = TestStore(
      initialState: ChannelListFeature.State(workspaces: [FakeChat.keel], workspaceID: "w1"),
      reducer: ChannelListFeature(client: chat.client))
    await store.send(.view(.workspaceAdded(FakeChat.lab))) {
      $0.workspaces = [FakeChat.keel, FakeChat.lab]
      $0.awaitingList = [FakeChat.lab]
    }
    await store.receive(.view(.workspaceSelected("w9"))) { $0.workspaceID = "w9" }
    await store.receive(.delegate(.workspaceChanged("w9")))
    await store.send(.internal(.workspacesChanged([FakeChat.keel], lastUsed: "w1")))  // stale: no change
    await store.send(.internal(.workspacesChanged([FakeChat.keel, FakeChat.lab], lastUsed: "w9"))) {
      $0.awaitingList = []
    }
    #expect(await chat.lastWorkspaceSets.recorded(until: { $0.contains("w9") }).last == "w9")
    chat.channels.finish("w9")
    await store.finish()
  }

  @Test("Creating a channel opens it; taps while it is created do nothing; an empty name is not sent")
  @MainActor
  func createChannel() async {
    let chat = FakeChat()
    chat.createGate.close()
    let store = TestStore(
      initialState: ChannelListFeature.State(
        workspaces: [FakeChat.keel], workspaceID: "w1", channels: [FakeChat.general]),
      reducer: ChannelListFeature(client: chat.client))
    await store.send(.view(.createChannelTapped("  "))) { $0.errorMessage = "A channel needs a name." }
    await store.send(.view(.createChannelTapped(" plans "))) {
      $0.errorMessage = nil
      $0.isCreatingChannel = true
    }
    await store.send(.view(.createChannelTapped("plans")))
    chat.createGate.open()
    let plans = Conversation(
      id: "c-plans", workspaceID: "w1", kind: .channel, name: "plans", joined: true, ownerID: "user-demo")
    await store.receiveFed(.response(.channelCreated(plans))) {
      $0.isCreatingChannel = false
      $0.channels = [FakeChat.general, plans]
    }
    await store.receiveFed(.delegate(.openConversation(plans)))
    #expect(chat.creates.elements == ["plans"])
    await store.finish()
  }

  @Test("DMs with unread counts and newest messages; a member with a room opens it, one without gets a new one")
  @MainActor
  func directMessages() async {
    let chat = FakeChat()
    let store = TestStore(
      initialState: DirectMessageListFeature.State(workspaceID: "w1", me: "user-demo"),
      reducer: DirectMessageListFeature(client: chat.client))
    await store.send(.view(.task))
    await store.receiveFed(.response(.membersLoaded([FakeChat.ada, FakeChat.bob, FakeChat.me]))) {
      $0.members = [FakeChat.ada, FakeChat.bob]
    }
    chat.rooms.yield([FakeChat.adaRoom], to: "w1")
    await store.receiveFed(.internal(.roomsChanged([FakeChat.adaRoom]))) { $0.rooms = [FakeChat.adaRoom] }
    #expect(store.state.unreadCount == 1)

    await store.send(.view(.roomTapped(FakeChat.adaRoom)))
    await store.receiveFed(.delegate(.openConversation(FakeChat.adaRoom.conversation)))
    await store.send(.view(.memberTapped(FakeChat.ada)))
    await store.receiveFed(.delegate(.openConversation(FakeChat.adaRoom.conversation)))
    #expect(chat.opened.elements.isEmpty, "a room that exists is not asked for")

    let bobRoom = DirectMessageRoom(
      conversation: Conversation(
        id: "d-user-bob", workspaceID: "w1", kind: .directMessage, name: "bob", joined: true),
      members: [FakeChat.bob, FakeChat.me], lastMessage: nil)
    await store.send(.view(.memberTapped(FakeChat.bob))) { $0.opening = "user-bob" }
    await store.receiveFed(.response(.opened(bobRoom))) {
      $0.opening = nil
      $0.rooms = [FakeChat.adaRoom, bobRoom]
    }
    await store.receiveFed(.delegate(.openConversation(bobRoom.conversation)))
    #expect(chat.opened.elements == ["user-bob"])
    chat.rooms.finish("w1")
    await store.finish()
  }
}
