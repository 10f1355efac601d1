extension AppFeature {
  /// The screens the app pushes on its navigation stack, over the chat: a channel's settings, a workspace's admin
  /// screen (or the form that creates one), and a profile.
  public struct Path: Reducer {
    /// One pushed screen.
    public enum State: Equatable, Sendable {
      /// A channel's settings.
      case channelSettings(ChannelSettingsFeature.State)
      /// A workspace's admin screen, or the form that creates one.
      case workspaceAdmin(WorkspaceAdminFeature.State)
      /// The signed-in user's profile, or a member's.
      case profile(ProfileFeature.State)
    }

    /// An action of one pushed screen.
    public enum Action: Equatable, Sendable {
      /// An action of a channel's settings.
      case channelSettings(ChannelSettingsFeature.Action)
      /// An action of a workspace's admin screen.
      case workspaceAdmin(WorkspaceAdminFeature.Action)
      /// An action of a profile.
      case profile(ProfileFeature.Action)
    }

    private let channelSettings: ChannelSettingsFeature
    private let workspaceAdmin: WorkspaceAdminFeature
    private let profile: ProfileFeature

    /// The pushed screens on the chat's admin calls and the session's profile calls.
    public init(admin: ChatAdminClient, profile: ProfileClient) {
      channelSettings = ChannelSettingsFeature(client: admin)
      workspaceAdmin = WorkspaceAdminFeature(client: admin)
      self.profile = ProfileFeature(client: profile)
    }

    /// Runs the screen an action is for.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      CombineReducers<State, Action> {
        Scope(
          stateCase: { if case .channelSettings(let screen) = $0 { screen } else { nil } },
          embedState: State.channelSettings,
          action: { if case .channelSettings(let action) = $0 { action } else { nil } },
          embed: Action.channelSettings
        ) {
          channelSettings
        }
        Scope(
          stateCase: { if case .workspaceAdmin(let screen) = $0 { screen } else { nil } },
          embedState: State.workspaceAdmin,
          action: { if case .workspaceAdmin(let action) = $0 { action } else { nil } },
          embed: Action.workspaceAdmin
        ) {
          workspaceAdmin
        }
        Scope(
          stateCase: { if case .profile(let screen) = $0 { screen } else { nil } }, embedState: State.profile,
          action: { if case .profile(let action) = $0 { action } else { nil } }, embed: Action.profile
        ) {
          profile
        }
      }
      .reduce(into: &state, action: action)
    }
  }
}
