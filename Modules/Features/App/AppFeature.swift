import Chat
import Domain

/// The app: ``SessionFeature`` always, and for a signed-in user ``UserSearchFeature``, ``UserImportFeature`` and,
/// when the app has one, ``ChatFeature`` (REQUIREMENTS F1–F3).
///
/// - Signing in shows the home screen with an empty search, and the chat: the last workspace, its channels, then
///   the conversation the user opens.
/// - Signing out, or the session expiring, resets every signed-in child: their state goes, their effects are
///   cancelled (a search in flight, an import half done), and the sign-in form shows. An import cut short this way
///   leaves its report in ``State/lastImportReport``.
/// - Children talk to the app only through their delegate actions (F2); the app talks to them through their own
///   actions, such as ``Action/session(_:)`` with `.view(.task)`.
/// - Navigation is state: the settings, admin and profile screens are pushed on ``State/path`` (a `StackState` of
///   ``Path``), over the chat; a screen that deleted or left its channel or workspace pops itself, and a deleted
///   workspace pops every screen (they may be its channels'); the lists follow the server. The side menu switches
///   workspaces, opens the profile and the admin screens, and signs out. Sign-up is presented over the sign-in form.
/// - The session ending (signed out, or expired) pops every pushed screen and closes the menu and the sign-up form:
///   every effect of theirs is cancelled, and the sign-in form shows.
///
/// ```swift
/// import Domain
/// import Foundation
///
/// var configuration = KeelConfiguration()
/// configuration.backendBaseURL = URL(string: "https://chat.example.com")!   // where users sign in
/// let dependencies = Dependencies.live(configuration: configuration)
/// try dependencies.users.initApplication(applicationId: "APP_ID", apiToken: "API_TOKEN")   // what the search asks
///
/// let store = Store(initialState: AppFeature.State(),
///                   reducer: AppFeature.live(dependencies: dependencies, clock: ContinuousClock()))
/// store.send(.view(.task))   // follows the session: a session restored at launch shows the home screen
/// ```
public struct AppFeature: Reducer {
  /// What can happen in the app: its own view actions, and each child's actions (F3).
  public enum Action: Equatable, Sendable {
    /// The user did something on screen.
    case view(View)
    /// An action of the session.
    case session(SessionFeature.Action)
    /// An action of the search.
    case search(UserSearchFeature.Action)
    /// An action of the import.
    case userImport(UserImportFeature.Action)
    /// An action of the chat.
    case chat(ChatFeature.Action)
    /// An action of the navigation stack: a pushed screen's, or a pop.
    case path(StackAction<Path.State, Path.Action>)
    /// An action of the sign-up form, or its dismissal.
    case signUp(PresentationAction<SignUpFeature.Action>)

    /// What the user does on screen.
    public enum View: Equatable, Sendable {
      /// The app appeared: start following the session.
      case task
      /// Import `users`; ignored while nobody is signed in or another import runs.
      case importTapped([UserCreationParams])
      /// Close the import screen; an import still running is cancelled.
      case importDismissed
      /// The app's scene phase changed (`scenePhase` on Apple platforms): passed on to the chat.
      case scenePhaseChanged(ChatFeature.ScenePhase)
      /// Show the sign-up form; ignored while someone is signed in.
      case signUpTapped
      /// Open or close the side menu.
      case sideMenuTapped
      /// Switch to the workspace `id`, from the side menu: back to the chat.
      case workspaceSwitched(String)
      /// Push the form that creates a workspace.
      case createWorkspaceTapped
      /// Push the admin screen of the workspace shown.
      case workspaceSettingsTapped
      /// Push the settings of the channel open in the chat.
      case channelSettingsTapped
      /// Push the signed-in user's profile.
      case profileTapped
      /// Push a member's profile.
      case memberTapped(Member)
      /// Sign out, from the side menu.
      case signOutTapped
    }
  }

  private let session: SessionFeature
  private let search: UserSearchFeature
  private let userImport: UserImportFeature
  /// The chat, or `nil` for an app without one.
  private let chat: ChatFeature?
  /// The pushed screens, or `nil` for an app without a chat.
  private let path: Path?
  private let signUp: SignUpFeature

  /// An app made of its features; without `chat` and `path`, signing in shows no chat and pushes nothing.
  public init(
    session: SessionFeature, search: UserSearchFeature, userImport: UserImportFeature, signUp: SignUpFeature,
    chat: ChatFeature? = nil, path: Path? = nil
  ) {
    self.session = session
    self.search = search
    self.userImport = userImport
    self.signUp = signUp
    self.chat = chat
    self.path = path
  }

  /// The app on `dependencies`' session and user managers and its chat (when the configuration has a backend for
  /// it), measuring time on `clock`.
  public static func live(dependencies: Dependencies, clock: any Clock<Duration>) -> AppFeature {
    let chat = try? dependencies.chat
    return AppFeature(
      session: .live(sessions: dependencies.sessions), search: .live(users: dependencies.users, clock: clock),
      userImport: .live(users: dependencies.users, clock: clock),
      signUp: SignUpFeature(client: .live(dependencies.sessions)), chat: chat.map { ChatFeature(client: .live($0)) },
      path: chat.map { Path(admin: .live($0), profile: .live(dependencies.sessions)) })
  }

  /// Runs the child an action is for, then the app's own logic.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    CombineReducers<State, Action> {
      Scope(
        state: \.session, action: { if case .session(let action) = $0 { action } else { nil } }, embed: Action.session
      ) {
        session
      }
      Reduce(core)
    }
    .ifLet(\.search, action: { if case .search(let action) = $0 { action } else { nil } }, embed: Action.search) {
      search
    }
    .ifLet(
      \.userImport, action: { if case .userImport(let action) = $0 { action } else { nil } }, embed: Action.userImport
    ) {
      userImport
    }
    .ifLet(\.chat, action: { if case .chat(let action) = $0 { action } else { nil } }, embed: Action.chat) {
      // Never run without a chat: its state is only made when there is one.
      chat.map(Reduce.init) ?? Reduce { _, _ in .none }
    }
    .forEach(\.path, action: { if case .path(let action) = $0 { action } else { nil } }, embed: Action.path) {
      // Never run without a chat: nothing is pushed without one.
      path.map(Reduce.init) ?? Reduce { _, _ in .none }
    }
    .ifLet(\.signUp, action: { if case .signUp(let action) = $0 { action } else { nil } }, embed: Action.signUp) {
      signUp
    }
    .reduce(into: &state, action: action)
  }

  private func core(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .view(.task):
      return .send(.session(.view(.task)))
    case .view(.importTapped(let users)):
      guard state.search != nil, state.userImport?.phase != .importing else { return .none }
      state.userImport = UserImportFeature.State(users: users)
      return .send(.userImport(.view(.startTapped)))
    case .view(.importDismissed):
      if let running = state.userImport, running.phase == .importing { state.lastImportReport = running.cutShort }
      state.userImport = nil
      return .none
    case .view(.scenePhaseChanged(let phase)):
      return state.chat == nil ? .none : .send(.chat(.view(.scenePhaseChanged(phase))))
    case .view(.signUpTapped):
      guard state.session.user == nil, state.signUp == nil else { return .none }
      state.signUp = SignUpFeature.State()
      return .none
    case .view(.sideMenuTapped):
      guard state.chat != nil else { return .none }
      state.isSideMenuOpen.toggle()
      return .none
    case .view(.signOutTapped):
      state.isSideMenuOpen = false
      return .send(.session(.view(.logoutTapped)))
    case .view(.workspaceSwitched), .view(.createWorkspaceTapped), .view(.workspaceSettingsTapped),
      .view(.channelSettingsTapped), .view(.profileTapped), .view(.memberTapped):
      return navigate(action, &state)
    case .session(.delegate(.signedIn(let user))):
      state.signUp = nil
      state.search = UserSearchFeature.State()
      guard chat != nil else { return .none }
      state.chat = ChatFeature.State(me: user.id)
      return .send(.chat(.view(.task)))
    case .session(.delegate(.signedOut)), .session(.delegate(.sessionExpired)):
      if let running = state.userImport, running.phase == .importing { state.lastImportReport = running.cutShort }
      state.search = nil
      state.userImport = nil
      state.selectedUser = nil
      state.chat = nil
      // Every pushed screen goes, its effects cancelled by the stack; the sign-in form shows.
      state.path.removeAll()
      state.isSideMenuOpen = false
      state.signUp = nil
      return .none
    case .search(.delegate(.userSelected(let user))):
      state.selectedUser = user
      return .none
    case .userImport(.delegate(.finished(let report))):
      state.lastImportReport = report
      return .none
    case .signUp(.presented(.delegate(.signedUp))):
      state.signUp = nil  // the session follows the new account as any sign-in
      return .none
    case .path(.element(_, action: let screen)):
      return pushedScreen(screen, &state)
    case .session, .search, .userImport, .chat, .path, .signUp:
      return .none
    }
  }

  /// Pushes a screen, or switches the workspace, as the side menu or the chat asked.
  private func navigate(_ action: Action, _ state: inout State) -> Effect<Action> {
    guard path != nil, let chat = state.chat, let me = state.session.user else { return .none }
    state.isSideMenuOpen = false
    switch action {
    case .view(.workspaceSwitched(let id)):
      state.path.removeAll()
      return .send(.chat(.channels(.view(.workspaceSelected(id)))))
    case .view(.createWorkspaceTapped):
      state.path.append(.workspaceAdmin(WorkspaceAdminFeature.State(me: me.id)))
      return .none
    case .view(.workspaceSettingsTapped):
      guard let workspace = chat.channels.workspace else { return .none }
      let id = state.path.append(.workspaceAdmin(WorkspaceAdminFeature.State(workspace: workspace, me: me.id)))
      return .send(.path(.element(id: id, action: .workspaceAdmin(.view(.task)))))
    case .view(.channelSettingsTapped):
      guard let channel = chat.conversation?.conversation, channel.kind == .channel else { return .none }
      let id = state.path.append(.channelSettings(ChannelSettingsFeature.State(channel: channel, me: me.id)))
      return .send(.path(.element(id: id, action: .channelSettings(.view(.task)))))
    case .view(.profileTapped):
      state.path.append(.profile(ProfileFeature.State(me: me)))
      return .none
    case .view(.memberTapped(let member)):
      state.path.append(
        member.id == me.id ? .profile(ProfileFeature.State(me: me)) : .profile(ProfileFeature.State(member: member)))
      return .none
    default:
      return .none
    }
  }

  /// What the app does when a pushed screen tells it something; the screen pops itself when what it showed is gone.
  private func pushedScreen(_ action: Path.Action, _ state: inout State) -> Effect<Action> {
    switch action {
    case .channelSettings(.delegate(.changed(let channel))):
      if state.chat?.conversation?.conversation.id == channel.id { state.chat?.conversation?.conversation = channel }
      return .none
    case .channelSettings(.delegate(.left(let channel))):
      if state.chat?.conversation?.conversation.id == channel.id { state.chat?.conversation = nil }
      return .none
    case .channelSettings(.delegate(.deleted(let channelID))):
      if state.chat?.conversation?.conversation.id == channelID { state.chat?.conversation = nil }
      return .none
    case .workspaceAdmin(.delegate(.created(let workspace))):
      return .send(.chat(.channels(.view(.workspaceAdded(workspace)))))
    case .workspaceAdmin(.delegate(.deleted)):
      state.path.removeAll()
      return .none
    default:
      return .none
    }
  }
}

extension UserImportFeature.State {
  /// The report of an import stopped from outside, before it finished.
  fileprivate var cutShort: UserImportFeature.Report {
    var stopped = self
    stopped.phase = .cancelled
    return stopped.report
  }
}
