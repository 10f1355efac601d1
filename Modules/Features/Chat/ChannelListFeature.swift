import Chat
import Domain
import Foundation

/// The workspace switcher and its channel list (REQUIREMENTS C1–C2, F2–F3): the user's workspaces and the chosen
/// one's channels, joined and not, each from the store at once and then from the server; joining a channel from the
/// list; opening one.
///
/// - ``View/task`` follows the workspaces; the first list chooses the workspace kept as the last one used if
///   it is still there, else the first, and loads its channels.
/// - ``View/workspaceSelected(_:)`` switches, keeps the choice for next time, and loads the channels.
/// - ``View/createChannelTapped(_:)`` creates a channel in the workspace shown and opens it; taps while one is being
///   created are ignored.
/// - The parent hears ``Delegate/workspaceChanged(_:)`` on every switch (the DM list follows it) and
///   ``Delegate/openConversation(_:)`` when a joined channel is tapped; tapping one not joined joins it.
public struct ChannelListFeature: Reducer {
  /// What the switcher and the list show.
  public struct State: Equatable, Sendable {
    /// The user's workspaces, by name.
    public var workspaces: [Workspace]
    /// The chosen workspace's id, once the workspaces are known.
    public var workspaceID: String?
    /// Its channels, joined and not.
    public var channels: [Conversation]
    /// The channels being joined.
    public var joining: Set<String>
    /// What went wrong last, or `nil`.
    public var errorMessage: String?
    /// Whether a channel is being created: another create waits for it.
    public var isCreatingChannel = false
    /// Workspaces added here (``View/workspaceAdded(_:)``) that no list has brought yet: kept in the switcher, so that
    /// a list the server answered before the workspace existed, arriving late, does not take it away again.
    public var awaitingList: [Workspace] = []

    /// A list, empty unless told otherwise.
    public init(
      workspaces: [Workspace] = [], workspaceID: String? = nil, channels: [Conversation] = [],
      joining: Set<String> = [], errorMessage: String? = nil
    ) {
      self.workspaces = workspaces
      self.workspaceID = workspaceID
      self.channels = channels
      self.joining = joining
      self.errorMessage = errorMessage
    }

    /// The chosen workspace.
    public var workspace: Workspace? { workspaces.first { $0.id == workspaceID } }
  }

  /// What can happen to the list, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The list appeared: follow the workspaces.
    case task
    /// The user switched to the workspace `id`.
    case workspaceSelected(String)
    /// The user made (or was just given) `workspace`: shown and switched to at once, before the live list brings it.
    case workspaceAdded(Workspace)
    /// The user tapped a channel: opened if joined, else joined.
    case channelTapped(Conversation)
    /// Create a channel named so in the workspace shown, and open it; ignored while another is being created.
    case createChannelTapped(String)
  }

  /// What the chat tells the feature.
  public enum Internal: Equatable, Sendable {
    /// The workspaces, stored or the server's, and the one kept as last used.
    case workspacesChanged([Workspace], lastUsed: String?)
    /// The channels of `workspaceID`, stored or the server's.
    case channelsChanged([Conversation], workspaceID: String)
  }

  /// The outcome of something the feature asked for.
  public enum Response: Equatable, Sendable {
    /// A list did not load, for the reason in `message`.
    case listFailed(message: String)
    /// The channel was joined.
    case joined(Conversation)
    /// Joining `channelID` failed, for the reason in `message`.
    case joinFailed(channelID: String, message: String)
    /// The channel was created.
    case channelCreated(Conversation)
    /// Creating a channel failed, for the reason in `message`.
    case createFailed(message: String)
  }

  /// What the list tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The workspace shown is now `id`.
    case workspaceChanged(String)
    /// Show `conversation`.
    case openConversation(Conversation)
  }

  private struct WorkspacesID: Hashable, Sendable {}
  private struct ChannelsID: Hashable, Sendable {}

  private let client: ChatClient

  /// A channel list on `client`.
  public init(client: ChatClient) {
    self.client = client
  }

  /// Applies `action` to the list.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.task):
      return .run { [client] send in
        for try await workspaces in client.workspaces() {
          await send(.internal(.workspacesChanged(workspaces, lastUsed: client.lastWorkspaceID())))
        }
      } catch: { error, send in
        await send(.response(.listFailed(message: ConversationFeature.words(error))))
      }
      .cancellable(id: WorkspacesID(), cancelInFlight: true)
    case .view(.workspaceSelected(let id)):
      guard id != state.workspaceID, state.workspaces.contains(where: { $0.id == id }) else { return .none }
      return .merge(switchTo(id, state: &state), .run { [client] _ in try? client.setLastWorkspaceID(id) })
    case .view(.workspaceAdded(let workspace)):
      if !state.workspaces.contains(where: { $0.id == workspace.id }) {
        state.workspaces = (state.workspaces + [workspace]).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        state.awaitingList.append(workspace)
      }
      return .send(.view(.workspaceSelected(workspace.id)))
    case .view(.channelTapped(let channel)):
      if channel.joined { return .send(.delegate(.openConversation(channel))) }
      guard !state.joining.contains(channel.id) else { return .none }
      state.joining.insert(channel.id)
      return .run { [client] send in
        await send(.response(.joined(try await client.join(channel.id))))
      } catch: { error, send in
        await send(.response(.joinFailed(channelID: channel.id, message: ConversationFeature.words(error))))
      }
    case .view(.createChannelTapped(let name)):
      guard !state.isCreatingChannel, let workspaceID = state.workspaceID else { return .none }
      let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !name.isEmpty else {
        state.errorMessage = "A channel needs a name."
        return .none
      }
      state.isCreatingChannel = true
      state.errorMessage = nil
      return .run { [client] send in
        await send(.response(.channelCreated(try await client.createChannel(name, workspaceID))))
      } catch: { error, send in
        await send(.response(.createFailed(message: ConversationFeature.words(error))))
      }
    case .internal(.workspacesChanged(let listed, let lastUsed)):
      state.awaitingList.removeAll { added in listed.contains { $0.id == added.id } }
      let workspaces = listed + state.awaitingList
      state.workspaces = workspaces.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
      if let current = state.workspaceID, workspaces.contains(where: { $0.id == current }) { return .none }
      guard let chosen = state.workspaces.first(where: { $0.id == lastUsed }) ?? state.workspaces.first else {
        state.workspaceID = nil
        state.channels = []
        return .cancel(id: ChannelsID())
      }
      return switchTo(chosen.id, state: &state)
    case .internal(.channelsChanged(let channels, let workspaceID)):
      guard workspaceID == state.workspaceID else { return .none }
      state.channels = channels
      return .none
    case .response(.listFailed(let message)):
      state.errorMessage = message
      return .none
    case .response(.joined(let channel)):
      state.joining.remove(channel.id)
      if let index = state.channels.firstIndex(where: { $0.id == channel.id }) { state.channels[index] = channel }
      return .none
    case .response(.channelCreated(let channel)):
      state.isCreatingChannel = false
      if channel.workspaceID == state.workspaceID, !state.channels.contains(where: { $0.id == channel.id }) {
        state.channels.append(channel)
      }
      return .send(.delegate(.openConversation(channel)))
    case .response(.createFailed(let message)):
      state.isCreatingChannel = false
      state.errorMessage = message
      return .none
    case .response(.joinFailed(let channelID, let message)):
      state.joining.remove(channelID)
      state.errorMessage = message
      return .none
    case .delegate:
      return .none
    }
  }

  /// Shows the workspace `id`: its channels, followed in place of the last one's, and the parent told.
  private func switchTo(_ id: String, state: inout State) -> Effect<Action> {
    state.workspaceID = id
    state.channels = []
    state.errorMessage = nil
    return .merge(
      .send(.delegate(.workspaceChanged(id))),
      .run { [client] send in
        for try await channels in client.channels(id) {
          await send(.internal(.channelsChanged(channels, workspaceID: id)))
        }
      } catch: { error, send in
        await send(.response(.listFailed(message: ConversationFeature.words(error))))
      }
      .cancellable(id: ChannelsID(), cancelInFlight: true))
  }
}
