import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import TestSupport
import Testing

/// ChannelSettingsFeature and WorkspaceAdminFeature through exhaustive TestStores on a fake server's admin calls:
/// every request, its confirmation, its refusal worded for the user, repeated taps, and the screen dismissing itself
/// when what it showed is gone. `SettingsIntegrationTests` runs the same flows against the Sandbox.
@Suite(.timeLimit(.minutes(3))) @MainActor struct SettingsFeatureTests {
  private static let mine = Conversation(
    id: "c2", workspaceID: "w1", kind: .channel, name: "general", joined: true, ownerID: "user-demo")

  // MARK: - Channel settings

  @Test("The owner loads the members and renames the channel; the parent hears of the change")
  func renameChannel() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    #expect(store.state.isOwner)
    await store.send(.view(.task)) { $0.isLoadingMembers = true }
    await store.receiveFed(.response(.membersLoaded([FakeChat.me, FakeChat.ada, FakeChat.bob]))) {
      $0.isLoadingMembers = false
      $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob]
    }
    #expect(store.state.handOverCandidates == [FakeChat.ada, FakeChat.bob])
    await store.send(.view(.nameChanged("  design "))) { $0.name = "  design " }
    await store.send(.view(.renameTapped)) { $0.running = .renaming }
    var renamed = Self.mine
    renamed.name = "design"
    await store.receiveFed(.response(.renamed(renamed))) {
      $0.running = nil
      $0.channel = renamed
      $0.name = "design"
    }
    await store.receiveFed(.delegate(.changed(renamed)))
    #expect(admin.calls.elements == ["channelMembers c2", "renameChannel c2 design"])
    await store.finish()
  }

  @Test("Repeated taps do one thing: while a rename runs, every button that sends is ignored")
  func tapsWhileRunning() async {
    let admin = FakeAdmin()
    admin.gate.close()
    let store = TestStore(
      initialState: ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    await store.send(.view(.nameChanged("design"))) { $0.name = "design" }
    await store.send(.view(.renameTapped)) { $0.running = .renaming }
    await store.send(.view(.renameTapped))
    await store.send(.view(.deleteTapped))
    await store.send(.view(.leaveTapped))
    await store.send(.view(.handOverTapped(FakeChat.bob)))
    await admin.gate.waiters(1)
    admin.gate.open()
    var renamed = Self.mine
    renamed.name = "design"
    await store.receiveFed(.response(.renamed(renamed))) {
      $0.running = nil
      $0.channel = renamed
    }
    await store.receiveFed(.delegate(.changed(renamed)))
    #expect(admin.calls.elements == ["renameChannel c2 design"], "one tap, one request")
    await store.finish()
  }

  @Test("A member who is not the owner gets the server's refusal, typed and worded; an empty name is not sent")
  func refusedAndInvalid() async {
    let admin = FakeAdmin()
    admin.failures.withLock { $0["renameChannel"] = FakeAdmin.refusal("E403", status: 403) }
    let store = TestStore(
      initialState: ChannelSettingsFeature.State(channel: FakeChat.general, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    #expect(!store.state.isOwner)
    await store.send(.view(.nameChanged("mine now"))) { $0.name = "mine now" }
    await store.send(.view(.renameTapped)) { $0.running = .renaming }
    let refusal = ScreenFailure(.notAllowed, "You are not allowed to rename the channel: only its owner may.")
    await store.receiveFed(.response(.failed(refusal))) {
      $0.running = nil
      $0.failure = refusal
    }
    await store.send(.view(.failureDismissed)) { $0.failure = nil }
    await store.send(.view(.nameChanged("   "))) { $0.name = "   " }
    await store.send(.view(.renameTapped)) { $0.failure = ScreenFailure(.invalidInput, "A channel needs a name.") }
    #expect(admin.calls.elements == ["renameChannel c2 mine now"])
    await store.finish()
  }

  @Test("Delete asks first; confirmed, the channel goes, the parent hears it, and the screen dismisses itself")
  func deleteChannel() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    let question = AlertState<ChannelSettingsFeature.Confirmation>(
      title: "Delete #general?", message: "Its messages go, for every member.",
      buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
    await store.send(.view(.deleteTapped)) { $0.alert = question }
    await store.send(.view(.alert(.dismiss))) { $0.alert = nil }
    #expect(admin.calls.elements.isEmpty, "cancelled: nothing sent")
    await store.send(.view(.deleteTapped)) { $0.alert = question }
    await store.send(.view(.alert(.presented(.delete)))) {
      $0.alert = nil
      $0.running = .deleting
    }
    await store.receiveFed(.response(.deleted)) { $0.running = nil }
    await store.receiveFed(.delegate(.deleted(channelID: "c2")))
    #expect(store.isDismissed)
    #expect(admin.calls.elements == ["deleteChannel c2"])
    await store.finish()
  }

  @Test("Hand-over asks first, then makes the chosen member the owner")
  func handOverChannel() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    await store.send(.view(.handOverTapped(FakeChat.bob))) {
      $0.alert = AlertState(
        title: "Hand #general to bob?", message: "bob becomes its owner; you stay a member.",
        buttons: [ButtonState("Hand over", action: .handOver(FakeChat.bob)), .cancel("Cancel")])
    }
    await store.send(.view(.alert(.presented(.handOver(FakeChat.bob))))) {
      $0.alert = nil
      $0.running = .handingOver(to: "user-bob")
    }
    var handedOver = Self.mine
    handedOver.ownerID = "user-bob"
    await store.receiveFed(.response(.handedOver(handedOver))) {
      $0.running = nil
      $0.channel = handedOver
    }
    await store.receiveFed(.delegate(.changed(handedOver)))
    #expect(!store.state.isOwner)
    await store.finish()
  }

  @Test("A member leaves at once; the owner is asked first, since leaving hands the channel on")
  func leaveChannel() async {
    let admin = FakeAdmin()
    let member = TestStore(
      initialState: ChannelSettingsFeature.State(channel: FakeChat.general, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    await member.send(.view(.leaveTapped)) { $0.running = .leaving }
    var left = FakeChat.general
    left.joined = false
    await member.receiveFed(.response(.left(left))) {
      $0.running = nil
      $0.channel = left
    }
    await member.receiveFed(.delegate(.left(left)))
    #expect(member.isDismissed)
    await member.finish()

    let owner = TestStore(
      initialState: ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo"),
      reducer: ChannelSettingsFeature(client: admin.client))
    await owner.send(.view(.leaveTapped)) {
      $0.alert = AlertState(
        title: "Leave #general?", message: "You own it: leaving hands it to the member who joined next.",
        buttons: [.destructive("Leave", action: .leave), .cancel("Stay")])
    }
    await owner.send(.view(.alert(.presented(.leave)))) {
      $0.alert = nil
      $0.running = .leaving
    }
    await owner.receiveFed(.response(.left(left))) {
      $0.running = nil
      $0.channel = left
    }
    await owner.receiveFed(.delegate(.left(left)))
    await owner.finish()
  }

  // MARK: - Workspace admin

  @Test("The create form makes a workspace, tells the parent, and dismisses itself; an empty name is not sent")
  func createWorkspace() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: WorkspaceAdminFeature.State(me: "user-demo"), reducer: WorkspaceAdminFeature(client: admin.client))
    await store.send(.view(.saveTapped)) { $0.failure = ScreenFailure(.invalidInput, "A workspace needs a name.") }
    await store.send(.view(.nameChanged("Design"))) { $0.name = "Design" }
    await store.send(.view(.saveTapped)) {
      $0.failure = nil
      $0.running = .creating
    }
    let design = Workspace(id: "w-new", name: "Design", ownerID: "user-demo")
    await store.receiveFed(.response(.created(design))) {
      $0.running = nil
      $0.workspace = design
    }
    await store.receiveFed(.delegate(.created(design)))
    #expect(store.isDismissed)
    #expect(admin.calls.elements == ["createWorkspace Design"])
    await store.finish()
  }

  @Test("Invite: a malformed email is refused before anything is sent; an unknown one gets the server's answer")
  func invite() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: WorkspaceAdminFeature.State(workspace: FakeChat.lab, me: "user-demo"),
      reducer: WorkspaceAdminFeature(client: admin.client))
    await store.send(.view(.inviteEmailChanged("not an email"))) { $0.inviteEmail = "not an email" }
    await store.send(.view(.inviteTapped)) { $0.inviteError = "Enter an email address such as name@example.com." }
    #expect(admin.calls.elements.isEmpty)

    await store.send(.view(.inviteEmailChanged("cy@keel.dev"))) {
      $0.inviteEmail = "cy@keel.dev"
      $0.inviteError = nil
    }
    await store.send(.view(.inviteTapped)) { $0.running = .inviting }
    let cy = Member(id: "user-cy@keel.dev", nickname: "cy@keel.dev", email: "cy@keel.dev")
    await store.receiveFed(
      .response(.invited(email: "cy@keel.dev", members: [FakeChat.me, FakeChat.ada, FakeChat.bob, cy]))
    ) {
      $0.running = nil
      $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob, cy]
      $0.lastInvited = "cy@keel.dev"
      $0.inviteEmail = ""
    }

    admin.failures.withLock { $0["invite"] = FakeAdmin.refusal("E404", status: 404) }
    await store.send(.view(.inviteEmailChanged("nobody@keel.dev"))) { $0.inviteEmail = "nobody@keel.dev" }
    await store.send(.view(.inviteTapped)) { $0.running = .inviting }
    let unknown = ScreenFailure(
      .notFound, "Cannot invite nobody@keel.dev: it no longer exists, or there is no such account.")
    await store.receiveFed(.response(.failed(unknown))) {
      $0.running = nil
      $0.failure = unknown
    }
    #expect(admin.calls.elements == ["invite cy@keel.dev w9", "workspaceMembers w9", "invite nobody@keel.dev w9"])

    // An invitation that went through while the list then failed to load is still an invitation
    admin.failures.withLock {
      $0["invite"] = nil
      $0["workspaceMembers"] = FakeAdmin.refusal("E500", status: 500)
    }
    await store.send(.view(.failureDismissed)) { $0.failure = nil }
    await store.send(.view(.inviteTapped)) { $0.running = .inviting }
    await store.receiveFed(.response(.invited(email: "nobody@keel.dev", members: nil))) {
      $0.running = nil
      $0.lastInvited = "nobody@keel.dev"
      $0.inviteEmail = ""
    }
    await store.finish()
  }

  @Test("Rename, hand over (asked first), and delete (asked first) a workspace")
  func renameHandOverDelete() async {
    let admin = FakeAdmin()
    let store = TestStore(
      initialState: WorkspaceAdminFeature.State(workspace: FakeChat.lab, me: "user-demo"),
      reducer: WorkspaceAdminFeature(client: admin.client))
    await store.send(.view(.nameChanged("Lab 2"))) { $0.name = "Lab 2" }
    await store.send(.view(.saveTapped)) { $0.running = .renaming }
    let renamed = Workspace(id: "w9", name: "Lab 2", ownerID: "user-demo")
    await store.receiveFed(.response(.changed(renamed))) {
      $0.running = nil
      $0.workspace = renamed
    }
    await store.receiveFed(.delegate(.changed(renamed)))

    await store.send(.view(.deleteTapped)) {
      $0.alert = AlertState(
        title: "Delete Lab 2?", message: "Its channels and direct messages go, for every member.",
        buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
    }
    await store.send(.view(.alert(.dismiss))) { $0.alert = nil }

    await store.send(.view(.handOverTapped(FakeChat.ada))) {
      $0.alert = AlertState(
        title: "Hand Lab 2 to ada?", message: "ada becomes its owner; you stay a member.",
        buttons: [ButtonState("Hand over", action: .handOver(FakeChat.ada)), .cancel("Cancel")])
    }
    await store.send(.view(.alert(.presented(.handOver(FakeChat.ada))))) {
      $0.alert = nil
      $0.running = .handingOver(to: "user-ada")
    }
    let handedOver = Workspace(id: "w9", name: "Lab", ownerID: "user-ada")
    await store.receiveFed(.response(.changed(handedOver))) {
      $0.running = nil
      $0.workspace = handedOver
      $0.name = "Lab"
    }
    await store.receiveFed(.delegate(.changed(handedOver)))

    await store.send(.view(.deleteTapped)) {
      $0.alert = AlertState(
        title: "Delete Lab?", message: "Its channels and direct messages go, for every member.",
        buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
    }
    await store.send(.view(.alert(.presented(.delete)))) {
      $0.alert = nil
      $0.running = .deleting
    }
    await store.receiveFed(.response(.deleted)) { $0.running = nil }
    await store.receiveFed(.delegate(.deleted(workspaceID: "w9")))
    #expect(store.isDismissed)
    #expect(
      admin.calls.elements == ["renameWorkspace w9 Lab 2", "transferWorkspace w9 user-ada", "deleteWorkspace w9"])
    await store.finish()
  }
}
