import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import TestSupport
import Testing

/// AppFeature's navigation through exhaustive TestStores: screens pushed over the chat and popped, a popped screen's
/// request cancelled, a screen that pops itself when its channel is gone, the side menu, sign-up presented and
/// dismissed, and the session's expiry popping everything (REQUIREMENTS F1–F3).
@Suite(.timeLimit(.minutes(3))) @MainActor struct AppNavigationTests {
  private static let demo = FakeSessions.demo
  private static let mine = Conversation(
    id: "c2", workspaceID: "w9", kind: .channel, name: "plans", joined: true, ownerID: "user-demo")

  /// The app on fakes, signed in as demo, with `mine` open in the chat.
  private static func app(
    sessions: FakeSessions, admin: FakeAdmin, chat: FakeChat = FakeChat()
  ) -> (AppFeature, AppFeature.State) {
    let server = FakeUserServer()
    let profile = ProfileClient(
      updateNickname: { SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: $0) },
      updateImage: { _, _ in FakeSessions.demo })
    let app = AppFeature(
      session: SessionFeature(client: sessions.client),
      search: UserSearchFeature(search: { _ in [] }, clock: server.clock), userImport: server.feature,
      signUp: SignUpFeature(client: sessions.client), chat: ChatFeature(client: chat.client),
      path: AppFeature.Path(admin: admin.client, profile: profile))
    var state = AppFeature.State(session: SessionFeature.State(status: .signedIn(demo)))
    state.search = UserSearchFeature.State()
    state.chat = ChatFeature.State(
      me: demo.id,
      channels: ChannelListFeature.State(workspaces: [FakeChat.lab], workspaceID: "w9", channels: [mine]),
      conversation: ConversationFeature.State(conversation: mine, me: demo.id))
    return (app, state)
  }

  @Test("Settings pushed over the chat; popped, its request in flight is cancelled and never answers")
  func popCancelsRequest() async {
    let sessions = FakeSessions(initial: .loggedIn(Self.demo))
    let admin = FakeAdmin()
    admin.gate.close()
    let (app, state) = Self.app(sessions: sessions, admin: admin)
    let store = TestStore(initialState: state, reducer: app)

    await store.send(.view(.channelSettingsTapped)) {
      $0.path.append(.channelSettings(ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo")))
    }
    await store.receive(.path(.element(id: 0, action: .channelSettings(.view(.task))))) {
      $0.path[id: 0] = .channelSettings(Self.settings { $0.isLoadingMembers = true })
    }
    await admin.gate.waiters(1)
    // WHEN the user goes back while the members load
    await store.send(.path(.popFrom(id: 0))) { $0.path.removeAll() }
    admin.gate.open()
    // THEN nothing comes back: the TestStore fails on an action it did not expect or an effect still running
    await store.finish()
    #expect(admin.calls.elements == ["channelMembers c2"])
  }

  @Test("A pushed screen that deletes its channel pops itself, and the chat closes the conversation")
  func screenPopsItself() async {
    let sessions = FakeSessions(initial: .loggedIn(Self.demo))
    let admin = FakeAdmin()
    let (app, state) = Self.app(sessions: sessions, admin: admin)
    let store = TestStore(initialState: state, reducer: app)
    store.exhaustivity = .on

    await store.send(.view(.channelSettingsTapped)) {
      $0.path.append(.channelSettings(ChannelSettingsFeature.State(channel: Self.mine, me: "user-demo")))
    }
    await store.receive(.path(.element(id: 0, action: .channelSettings(.view(.task))))) {
      $0.path[id: 0] = .channelSettings(Self.settings { $0.isLoadingMembers = true })
    }
    await store.receiveFed(
      .path(
        .element(id: 0, action: .channelSettings(.response(.membersLoaded([FakeChat.me, FakeChat.ada, FakeChat.bob])))))
    ) {
      $0.path[id: 0] = .channelSettings(Self.settings { $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob] })
    }
    let question = AlertState<ChannelSettingsFeature.Confirmation>(
      title: "Delete #plans?", message: "Its messages go, for every member.",
      buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
    await store.send(.path(.element(id: 0, action: .channelSettings(.view(.deleteTapped))))) {
      $0.path[id: 0] = .channelSettings(
        Self.settings {
          $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob]
          $0.alert = question
        })
    }
    await store.send(.path(.element(id: 0, action: .channelSettings(.view(.alert(.presented(.delete))))))) {
      $0.path[id: 0] = .channelSettings(
        Self.settings {
          $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob]
          $0.running = .deleting
        })
    }
    await store.receiveFed(.path(.element(id: 0, action: .channelSettings(.response(.deleted))))) {
      $0.path[id: 0] = .channelSettings(Self.settings { $0.members = [FakeChat.me, FakeChat.ada, FakeChat.bob] })
    }
    await store.receive(.path(.element(id: 0, action: .channelSettings(.delegate(.deleted(channelID: "c2")))))) {
      $0.chat?.conversation = nil
    }
    await store.receive(.path(.popFrom(id: 0))) { $0.path.removeAll() }
    await store.finish()
  }

  @Test("The side menu opens, pushes the profile and the workspace form, switches workspaces, and signs out")
  func sideMenu() async {
    let sessions = FakeSessions(initial: .loggedIn(Self.demo))
    let admin = FakeAdmin()
    let (app, state) = Self.app(sessions: sessions, admin: admin)
    let store = TestStore(initialState: state, reducer: app)

    await store.send(.view(.sideMenuTapped)) { $0.isSideMenuOpen = true }
    #expect(store.state.sideMenuWorkspaces == [FakeChat.lab] && store.state.currentWorkspace == FakeChat.lab)
    await store.send(.view(.profileTapped)) {
      $0.isSideMenuOpen = false
      $0.path.append(.profile(ProfileFeature.State(me: Self.demo)))
    }
    await store.send(.view(.sideMenuTapped)) { $0.isSideMenuOpen = true }
    await store.send(.view(.createWorkspaceTapped)) {
      $0.isSideMenuOpen = false
      $0.path.append(.workspaceAdmin(WorkspaceAdminFeature.State(me: "user-demo")))
    }
    await store.send(.view(.memberTapped(FakeChat.ada))) {
      $0.path.append(.profile(ProfileFeature.State(member: FakeChat.ada)))
    }
    #expect(store.state.path.ids == [0, 1, 2])
    // Switching workspaces goes back to the chat: every pushed screen pops
    await store.send(.view(.workspaceSwitched("w9"))) { $0.path.removeAll() }
    await store.receive(.chat(.channels(.view(.workspaceSelected("w9")))))
    await store.send(.view(.sideMenuTapped)) { $0.isSideMenuOpen = true }
    sessions.logoutGate.close()
    await store.send(.view(.signOutTapped)) { $0.isSideMenuOpen = false }
    await store.receive(.session(.view(.logoutTapped))) { $0.session.status = .signingOut }
    sessions.logoutGate.open()
    await store.receiveFed(.session(.response(.loggedOut(warning: nil)))) { $0.session.status = .signedOut }
    await store.receive(.session(.delegate(.signedOut))) {
      $0.search = nil
      $0.chat = nil
    }
    await store.finish()
  }

  @Test("The session expiring pops every pushed screen, cancels their requests, and shows the sign-in form")
  func expiryPopsEverything() async {
    let sessions = FakeSessions(initial: .loggedIn(Self.demo))
    let admin = FakeAdmin()
    admin.gate.close()
    let (app, state) = Self.app(sessions: sessions, admin: admin)
    let store = TestStore(initialState: state, reducer: app)
    await store.send(.view(.task))
    await store.receive(.session(.view(.task)))
    await store.receiveFed(.session(.internal(.sessionChanged(.loggedIn(Self.demo)))))
    await store.send(.view(.workspaceSettingsTapped)) {
      $0.path.append(.workspaceAdmin(WorkspaceAdminFeature.State(workspace: FakeChat.lab, me: "user-demo")))
    }
    await store.receive(.path(.element(id: 0, action: .workspaceAdmin(.view(.task))))) {
      var admin = WorkspaceAdminFeature.State(workspace: FakeChat.lab, me: "user-demo")
      admin.isLoadingMembers = true
      $0.path[id: 0] = .workspaceAdmin(admin)
    }
    await admin.gate.waiters(1)

    sessions.publish(.expired)
    await store.receiveFed(.session(.internal(.sessionChanged(.expired)))) {
      $0.session.status = .signedOut
      $0.session.errorMessage = SessionFeature.expiredMessage
    }
    await store.receive(.session(.delegate(.sessionExpired))) {
      $0.search = nil
      $0.chat = nil
      $0.path.removeAll()
    }
    #expect(store.state.screen == .login)
    admin.gate.open()
    sessions.end()
    await store.finish()
  }

  @Test("Sign-up is presented over the sign-in form, and dismissed once the new account is signed in")
  func signUpPresented() async {
    let sessions = FakeSessions()
    let admin = FakeAdmin()
    let (app, _) = Self.app(sessions: sessions, admin: admin)
    let store = TestStore(initialState: AppFeature.State(), reducer: app)
    await store.send(.view(.signUpTapped)) { $0.signUp = SignUpFeature.State() }
    await store.send(.view(.signUpTapped))  // already shown
    await store.send(.signUp(.presented(.view(.emailChanged("new@keel.dev"))))) { $0.signUp?.email = "new@keel.dev" }
    await store.send(.signUp(.presented(.view(.passwordChanged("a long password"))))) {
      $0.signUp?.password = "a long password"
    }
    await store.send(.signUp(.presented(.view(.signUpTapped)))) { $0.signUp?.isSigningUp = true }
    let user = SessionUser(id: "user-new", email: "new@keel.dev", nickname: "new")
    await store.receiveFed(.signUp(.presented(.response(.signedUp(user))))) {
      $0.signUp?.isSigningUp = false
      $0.signUp?.password = ""
    }
    await store.receive(.signUp(.presented(.delegate(.signedUp(user))))) { $0.signUp = nil }
    await store.finish()

    // And the view's own dismissal (a swipe) closes it too
    await store.send(.view(.signUpTapped)) { $0.signUp = SignUpFeature.State() }
    await store.send(.signUp(.dismiss)) { $0.signUp = nil }
  }

  /// The settings of `mine` for demo, changed by `change`.
  private static func settings(
    _ change: (inout ChannelSettingsFeature.State) -> Void
  ) -> ChannelSettingsFeature.State {
    var settings = ChannelSettingsFeature.State(channel: mine, me: "user-demo")
    change(&settings)
    return settings
  }
}
