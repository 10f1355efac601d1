import Chat
import Foundation

/// A channel's settings screen: its name and members; rename and delete (the owner's), leave (an owner who leaves
/// hands the channel on, as the server does), and hand it over to a chosen member (REQUIREMENTS F1–F3, C1).
///
/// - ``View/task`` loads the members; ``State/isOwner`` tells the view which buttons to offer. The server decides:
///   a refusal (not the owner, the channel gone, a name taken) shows as ``State/failure``, typed and worded for the
///   user, and changes nothing else.
/// - Delete, hand-over, and an owner's leave ask first, as an alert; a member's leave does not.
/// - Repeated taps do one thing: while a request runs (``State/running``), every button that sends is ignored.
/// - Deleted or left, the screen tells its parent (``Delegate/deleted(channelID:)``, ``Delegate/left(_:)``) and
///   dismisses itself (`Effect.dismiss`): pushed on a stack, it pops. Renamed or handed over, the parent hears
///   ``Delegate/changed(_:)``.
///
/// ```swift
/// import Chat
///
/// @MainActor
/// func settings(of channel: Conversation, me: String, chat: ChatService) -> Store<
///   ChannelSettingsFeature.State, ChannelSettingsFeature.Action
/// > {
///   let store = Store(initialState: ChannelSettingsFeature.State(channel: channel, me: me),
///                     reducer: ChannelSettingsFeature(client: .live(chat)))
///   store.send(.view(.task))                   // loads the members
///   store.send(.view(.nameChanged("design")))
///   store.send(.view(.renameTapped))           // the owner's; anyone else gets the server's refusal
///   return store
/// }
/// ```
public struct ChannelSettingsFeature: Reducer {
  /// What can happen on the screen, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Never, Response, Delegate>

  /// What the screen shows.
  public struct State: Equatable, Sendable {
    /// The channel, as the server last answered.
    public var channel: Conversation
    /// The signed-in user's id.
    public var me: String
    /// The channel's members, in the order they joined; empty until loaded.
    public var members: [Member] = []
    /// The name in the rename field.
    public var name: String
    /// Whether the members are loading (the buttons do not wait for it).
    public var isLoadingMembers = false
    /// The request under way, if any: buttons that send wait for it.
    public var running: Request?
    /// Why the last request did not happen, or `nil`.
    public var failure: ScreenFailure?
    /// The question on screen before a delete, a hand-over or an owner's leave.
    public var alert: AlertState<Confirmation>?

    /// The settings of `channel`, seen by the user `me`.
    public init(channel: Conversation, me: String) {
      self.channel = channel
      self.me = me
      name = channel.name
    }

    /// Whether the user owns the channel: who may rename, delete and hand it over.
    public var isOwner: Bool { channel.ownerID == me }
    /// The members the channel can be handed to: everyone but the user.
    public var handOverCandidates: [Member] { members.filter { $0.id != me } }
  }

  /// A request of the screen's.
  public enum Request: Hashable, Sendable {
    /// Renaming the channel.
    case renaming
    /// Deleting it.
    case deleting
    /// Leaving it.
    case leaving
    /// Handing it to the member with this id.
    case handingOver(to: String)
  }

  /// What the user confirms in an alert.
  public enum Confirmation: Equatable, Sendable {
    /// Delete the channel.
    case delete
    /// Leave it (asked of its owner, who hands it on by leaving).
    case leave
    /// Hand it to `member`.
    case handOver(Member)
  }

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The screen appeared: load the members.
    case task
    /// The rename field changed.
    case nameChanged(String)
    /// Rename the channel to the field's name.
    case renameTapped
    /// Delete the channel: asks first.
    case deleteTapped
    /// Leave the channel: asks its owner first.
    case leaveTapped
    /// Hand the channel to `member`: asks first.
    case handOverTapped(Member)
    /// The alert's answer.
    case alert(PresentationAction<Confirmation>)
    /// The failure was read.
    case failureDismissed
  }

  /// The outcome of a request.
  public enum Response: Equatable, Sendable {
    /// The members, loaded.
    case membersLoaded([Member])
    /// The members did not load.
    case membersFailed(ScreenFailure)
    /// Renamed: the channel as the server has it.
    case renamed(Conversation)
    /// Deleted.
    case deleted
    /// Left: the channel, not joined.
    case left(Conversation)
    /// Handed over: the channel with its new owner.
    case handedOver(Conversation)
    /// The request did not happen.
    case failed(ScreenFailure)
  }

  /// What the screen tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The channel changed (a new name, a new owner): update what shows it.
    case changed(Conversation)
    /// The user deleted the channel; the screen dismisses itself.
    case deleted(channelID: String)
    /// The user left the channel; the screen dismisses itself.
    case left(Conversation)
  }

  private let client: ChatAdminClient

  /// The screen on `client`.
  public init(client: ChatAdminClient) {
    self.client = client
  }

  /// Applies `action` to the screen.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Reduce(core)
      .ifLet(\.alert, action: { if case .view(.alert(let a)) = $0 { a } else { nil } }, embed: { .view(.alert($0)) })
      .reduce(into: &state, action: action)
  }

  private func core(_ state: inout State, _ action: Action) -> Effect<Action> {
    let id = state.channel.id
    switch action {
    case .view(.task):
      guard !state.isLoadingMembers else { return .none }
      state.isLoadingMembers = true
      return Features.request(
        "load the members", client, response: { .response(.membersLoaded(try await $0.channelMembers(id))) },
        failed: { .response(.membersFailed($0)) })
    case .view(.nameChanged(let name)):
      state.name = name
      return .none
    case .view(.renameTapped):
      guard state.running == nil else { return .none }
      let name = state.name.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !name.isEmpty else {
        state.failure = ScreenFailure(.invalidInput, "A channel needs a name.")
        return .none
      }
      guard name != state.channel.name else { return .none }
      state.running = .renaming
      state.failure = nil
      return request("rename the channel") { .renamed(try await $0.renameChannel(id, name)) }
    case .view(.deleteTapped):
      guard state.running == nil else { return .none }
      state.alert = AlertState(
        title: "Delete #\(state.channel.name)?", message: "Its messages go, for every member.",
        buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
      return .none
    case .view(.leaveTapped):
      guard state.running == nil else { return .none }
      guard state.isOwner else { return leave(&state) }
      state.alert = AlertState(
        title: "Leave #\(state.channel.name)?", message: "You own it: leaving hands it to the member who joined next.",
        buttons: [.destructive("Leave", action: .leave), .cancel("Stay")])
      return .none
    case .view(.handOverTapped(let member)):
      guard state.running == nil, member.id != state.me else { return .none }
      state.alert = AlertState(
        title: "Hand #\(state.channel.name) to \(member.nickname)?",
        message: "\(member.nickname) becomes its owner; you stay a member.",
        buttons: [ButtonState("Hand over", action: .handOver(member)), .cancel("Cancel")])
      return .none
    case .view(.alert(.presented(.delete))):
      guard state.running == nil else { return .none }
      state.running = .deleting
      state.failure = nil
      return request("delete the channel") { client in
        try await client.deleteChannel(id)
        return .deleted
      }
    case .view(.alert(.presented(.leave))):
      guard state.running == nil else { return .none }
      return leave(&state)
    case .view(.alert(.presented(.handOver(let member)))):
      guard state.running == nil else { return .none }
      state.running = .handingOver(to: member.id)
      state.failure = nil
      return request("hand the channel over") { .handedOver(try await $0.transferChannel(id, member.id)) }
    case .view(.alert(.dismiss)):
      return .none
    case .view(.failureDismissed):
      state.failure = nil
      return .none
    case .response(.membersLoaded(let members)):
      state.isLoadingMembers = false
      state.members = members
      return .none
    case .response(.membersFailed(let failure)):
      state.isLoadingMembers = false
      state.failure = failure
      return .none
    case .response(.renamed(let channel)), .response(.handedOver(let channel)):
      state.running = nil
      state.channel = channel
      state.name = channel.name
      return .send(.delegate(.changed(channel)))
    case .response(.deleted):
      state.running = nil
      return .merge(.send(.delegate(.deleted(channelID: id))), .dismiss)
    case .response(.left(let channel)):
      state.running = nil
      state.channel = channel
      return .merge(.send(.delegate(.left(channel))), .dismiss)
    case .response(.failed(let failure)):
      state.running = nil
      state.failure = failure
      return .none
    case .delegate:
      return .none
    }
  }

  private func request(
    _ what: String, _ response: @escaping @Sendable (ChatAdminClient) async throws -> Response
  ) -> Effect<Action> {
    Features.request(what, client, response: { .response(try await response($0)) }, failed: { .response(.failed($0)) })
  }

  private func leave(_ state: inout State) -> Effect<Action> {
    let id = state.channel.id
    state.running = .leaving
    state.failure = nil
    return request("leave the channel") { .left(try await $0.leaveChannel(id)) }
  }
}
