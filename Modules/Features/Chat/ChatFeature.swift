import Chat
import Domain
import KeelConcurrency

/// The chat of a signed-in user (REQUIREMENTS C1–C6, F1–F3): the workspace switcher and channel list always, the
/// chosen workspace's DM list, and the conversation on screen, if any.
///
/// - ``Action/View/task`` starts the channel list; the DM list follows its workspace.
/// - A channel or DM the user opens shows as the conversation (one at a time: opening another replaces it, and the
///   first is closed); leaving it removes it, which closes the chat's socket when nothing else is shown.
/// - ``Action/View/scenePhaseChanged(_:)`` is how an app passes its lifecycle on (`scenePhase` on Apple platforms):
///   in the background the socket closes; active again, it reconnects and the conversation catches up. The chat gets
///   the calls in the order the phases changed, each after the one before has finished.
/// - Children talk to it only through their delegate actions (F2).
///
/// ```swift
/// import Chat
/// import Domain
/// import Foundation
///
/// @MainActor
/// func chatScreen(dependencies: Dependencies, me: SessionUser) throws -> Store<ChatFeature.State, ChatFeature.Action> {
///   let store = Store(initialState: ChatFeature.State(me: me.id),
///                     reducer: ChatFeature(client: .live(try dependencies.chat)))
///   store.send(.view(.task))   // the last workspace, then its channels
///   return store
/// }
/// ```
public struct ChatFeature: Reducer {
  /// What the chat shows.
  public struct State: Equatable, Sendable {
    /// The signed-in user's id.
    public var me: String
    /// The workspace switcher and channel list.
    public var channels: ChannelListFeature.State
    /// The chosen workspace's DM list, once there is one.
    public var directMessages: DirectMessageListFeature.State?
    /// The conversation on screen, if any.
    public var conversation: ConversationFeature.State?
    /// Whether the app is in the foreground.
    public var isActive: Bool

    /// The chat of the user `me`, nothing loaded yet.
    public init(
      me: String, channels: ChannelListFeature.State = ChannelListFeature.State(),
      directMessages: DirectMessageListFeature.State? = nil, conversation: ConversationFeature.State? = nil,
      isActive: Bool = true
    ) {
      self.me = me
      self.channels = channels
      self.directMessages = directMessages
      self.conversation = conversation
      self.isActive = isActive
    }
  }

  /// Where the app is in its life, as an app's `scenePhase` says.
  public enum ScenePhase: Hashable, Sendable {
    /// In the foreground and taking input.
    case active
    /// Visible but not taking input (a call, the app switcher).
    case inactive
    /// Not visible.
    case background
  }

  /// What can happen in the chat: its own view actions, and each child's actions (F3).
  public enum Action: Equatable, Sendable {
    /// The user or the app's lifecycle did something.
    case view(View)
    /// An action of the channel list.
    case channels(ChannelListFeature.Action)
    /// An action of the DM list.
    case directMessages(DirectMessageListFeature.Action)
    /// An action of the conversation.
    case conversation(ConversationFeature.Action)

    /// What the user or the app's lifecycle does.
    public enum View: Equatable, Sendable {
      /// The chat appeared.
      case task
      /// The app's scene phase changed.
      case scenePhaseChanged(ScenePhase)
    }
  }

  private let client: ChatClient
  private let channelList: ChannelListFeature
  private let directMessageList: DirectMessageListFeature
  private let conversation: ConversationFeature
  /// Keeps background and foreground calls in the order the scene phase changed: the changes are reduced in order, but
  /// each one's effect runs on a task of its own, and a quick background-then-active could otherwise reach the chat as
  /// foreground, then background, and leave an active app with its socket closed (seen under ThreadSanitizer's load).
  private let lifecycleTurns = AsyncTurns()

  /// A chat on `client`.
  public init(client: ChatClient) {
    self.client = client
    channelList = ChannelListFeature(client: client)
    directMessageList = DirectMessageListFeature(client: client)
    conversation = ConversationFeature(client: client)
  }

  /// Runs the child an action is for, then the chat's own logic.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    CombineReducers<State, Action> {
      Scope(
        state: \.channels, action: { if case .channels(let action) = $0 { action } else { nil } },
        embed: Action.channels
      ) {
        channelList
      }
      Reduce(core)
    }
    .ifLet(
      \.directMessages, action: { if case .directMessages(let action) = $0 { action } else { nil } },
      embed: Action.directMessages
    ) {
      directMessageList
    }
    .ifLet(
      \.conversation, action: { if case .conversation(let action) = $0 { action } else { nil } },
      embed: Action.conversation
    ) {
      conversation
    }
    .reduce(into: &state, action: action)
  }

  private func core(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .view(.task):
      return .send(.channels(.view(.task)))
    case .view(.scenePhaseChanged(let phase)):
      let active = phase == .active
      guard active != state.isActive else { return .none }
      state.isActive = active
      let turn = lifecycleTurns.take()
      return .run { [client] _ in
        await turn.wait()
        if active { await client.appWillEnterForeground() } else { await client.appDidEnterBackground() }
        turn.end()
      }
    case .channels(.delegate(.workspaceChanged(let id))):
      state.directMessages = DirectMessageListFeature.State(workspaceID: id, me: state.me)
      if state.conversation?.conversation.workspaceID != id { state.conversation = nil }
      return .send(.directMessages(.view(.task)))
    case .channels(.delegate(.openConversation(let opened))),
      .directMessages(.delegate(.openConversation(let opened))):
      guard state.conversation?.conversation.id != opened.id else { return .none }
      state.conversation = ConversationFeature.State(conversation: opened, me: state.me)
      return .send(.conversation(.view(.task)))
    case .conversation(.delegate(.dismissed)):
      state.conversation = nil
      return .none
    case .channels, .directMessages, .conversation:
      return .none
    }
  }
}
