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
    }
  }

  private let session: SessionFeature
  private let search: UserSearchFeature
  private let userImport: UserImportFeature
  /// The chat, or `nil` for an app without one.
  private let chat: ChatFeature?

  /// An app made of its features; without `chat`, signing in shows no chat.
  public init(
    session: SessionFeature, search: UserSearchFeature, userImport: UserImportFeature, chat: ChatFeature? = nil
  ) {
    self.session = session
    self.search = search
    self.userImport = userImport
    self.chat = chat
  }

  /// The app on `dependencies`' session and user managers and its chat (when the configuration has a backend for
  /// it), measuring time on `clock`.
  public static func live(dependencies: Dependencies, clock: any Clock<Duration>) -> AppFeature {
    AppFeature(
      session: .live(sessions: dependencies.sessions), search: .live(users: dependencies.users, clock: clock),
      userImport: .live(users: dependencies.users, clock: clock),
      chat: (try? dependencies.chat).map { ChatFeature(client: .live($0)) })
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
    case .session(.delegate(.signedIn(let user))):
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
      return .none
    case .search(.delegate(.userSelected(let user))):
      state.selectedUser = user
      return .none
    case .userImport(.delegate(.finished(let report))):
      state.lastImportReport = report
      return .none
    case .session, .search, .userImport, .chat:
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
