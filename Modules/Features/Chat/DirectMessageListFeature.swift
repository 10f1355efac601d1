import Chat
import Domain

/// A workspace's DM list (REQUIREMENTS C2, F2–F3): the user's rooms with their unread counts and newest messages,
/// from the store at once and then from the server, and the workspace's members to start one with.
///
/// - ``View/task`` follows the rooms and loads the members.
/// - Tapping a room, or a member (whose room is opened, or made, on the server), sends the parent
///   ``Delegate/openConversation(_:)``.
public struct DirectMessageListFeature: Reducer {
  /// What the DM list shows.
  public struct State: Equatable, Sendable {
    /// The workspace.
    public var workspaceID: String
    /// The signed-in user's id: not listed among the members to write to.
    public var me: String
    /// The user's rooms.
    public var rooms: [DirectMessageRoom]
    /// The workspace's other members.
    public var members: [Member]
    /// The member whose room is being opened, or `nil`.
    public var opening: String?
    /// What went wrong last, or `nil`.
    public var errorMessage: String?

    /// The list of `workspaceID`, empty unless told otherwise.
    public init(
      workspaceID: String, me: String, rooms: [DirectMessageRoom] = [], members: [Member] = [],
      opening: String? = nil, errorMessage: String? = nil
    ) {
      self.workspaceID = workspaceID
      self.me = me
      self.rooms = rooms
      self.members = members
      self.opening = opening
      self.errorMessage = errorMessage
    }

    /// How many messages wait unread in all the rooms.
    public var unreadCount: Int { rooms.reduce(0) { $0 + $1.conversation.unreadCount } }
  }

  /// What can happen to the list, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The list appeared: follow the rooms, load the members.
    case task
    /// The user tapped a room.
    case roomTapped(DirectMessageRoom)
    /// The user tapped a member: open the room with them.
    case memberTapped(Member)
  }

  /// What the chat tells the feature.
  public enum Internal: Equatable, Sendable {
    /// The rooms, stored or the server's.
    case roomsChanged([DirectMessageRoom])
  }

  /// The outcome of something the feature asked for.
  public enum Response: Equatable, Sendable {
    /// The workspace's members.
    case membersLoaded([Member])
    /// The room with a member is open.
    case opened(DirectMessageRoom)
    /// Something did not load or open, for the reason in `message`.
    case failed(message: String)
  }

  /// What the list tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// Show `conversation`.
    case openConversation(Conversation)
  }

  private struct RoomsID: Hashable, Sendable {}

  private let client: ChatClient

  /// A DM list on `client`.
  public init(client: ChatClient) {
    self.client = client
  }

  /// Applies `action` to the list.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    let workspaceID = state.workspaceID
    switch action {
    case .view(.task):
      return .merge(
        .run { [client] send in
          for try await rooms in client.directMessages(workspaceID) { await send(.internal(.roomsChanged(rooms))) }
        } catch: { error, send in
          await send(.response(.failed(message: ConversationFeature.words(error))))
        }
        .cancellable(id: RoomsID(), cancelInFlight: true),
        .run { [client] send in
          await send(.response(.membersLoaded(try await client.members(workspaceID))))
        } catch: { error, send in
          await send(.response(.failed(message: ConversationFeature.words(error))))
        })
    case .view(.roomTapped(let room)):
      return .send(.delegate(.openConversation(room.conversation)))
    case .view(.memberTapped(let member)):
      guard state.opening == nil else { return .none }
      if let room = state.rooms.first(where: { $0.members.contains { $0.id == member.id } }) {
        return .send(.delegate(.openConversation(room.conversation)))
      }
      state.opening = member.id
      return .run { [client] send in
        await send(.response(.opened(try await client.openDirectMessage(member.id, workspaceID))))
      } catch: { error, send in
        await send(.response(.failed(message: ConversationFeature.words(error))))
      }
    case .internal(.roomsChanged(let rooms)):
      state.rooms = rooms
      return .none
    case .response(.membersLoaded(let members)):
      state.members = members.filter { $0.id != state.me }
      return .none
    case .response(.opened(let room)):
      state.opening = nil
      if !state.rooms.contains(where: { $0.conversation.id == room.conversation.id }) { state.rooms.append(room) }
      return .send(.delegate(.openConversation(room.conversation)))
    case .response(.failed(let message)):
      state.opening = nil
      state.errorMessage = message
      return .none
    case .delegate:
      return .none
    }
  }
}
