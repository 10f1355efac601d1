import Chat
import Domain

extension AppFeature {
  /// The whole app: the session, and the screens of a signed-in user.
  public struct State: Equatable, Sendable {
    /// Signing in and out.
    public var session: SessionFeature.State
    /// The user search, while someone is signed in.
    public var search: UserSearchFeature.State?
    /// The import on screen, while someone is signed in and has started one.
    public var userImport: UserImportFeature.State?
    /// The user last chosen in the search.
    public var selectedUser: User?
    /// What the last import did, finished, cancelled, or cut short when the session ended.
    public var lastImportReport: UserImportFeature.Report?
    /// The chat, while someone is signed in (when the app has one).
    public var chat: ChatFeature.State?
    /// The screens pushed over the chat, bottom first: emptied (their effects cancelled) when the session ends.
    public var path = StackState<Path.State>()
    /// The sign-up form, presented over the sign-in form.
    public var signUp: SignUpFeature.State?
    /// Whether the side menu (the workspace switcher, the profile, sign-out) is open.
    public var isSideMenuOpen = false

    /// An app with nobody signed in.
    public init(session: SessionFeature.State = SessionFeature.State()) {
      self.session = session
    }

    /// Which screen shows.
    public var screen: Screen { search == nil ? .login : .home }

    /// What the side menu lists: the user's workspaces, the one shown first.
    public var sideMenuWorkspaces: [Workspace] { chat?.channels.workspaces ?? [] }

    /// The workspace the chat shows, if any.
    public var currentWorkspace: Workspace? { chat?.channels.workspace }
  }

  /// The app's screens.
  public enum Screen: Hashable, Sendable {
    /// The sign-in form.
    case login
    /// The signed-in user's screens: search and import.
    case home
  }
}
