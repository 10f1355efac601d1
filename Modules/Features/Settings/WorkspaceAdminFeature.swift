import Chat
import Foundation

/// A workspace's admin screen, or the form that creates one: create, rename, delete (asked first), invite by email
/// (a malformed address refused before anything is sent), its members, and hand it over (asked first)
/// (REQUIREMENTS F1–F3, C1).
///
/// - With no workspace (``State/init(me:)``), ``View/saveTapped`` creates one named as the field says; with one, it
///   renames it. ``View/task`` loads the members of an existing workspace.
/// - The server decides who may do what: a refusal (not the owner, no account with that email) shows as
///   ``State/failure``, typed and worded for the user.
/// - Repeated taps do one thing: while a request runs (``State/running``), every button that sends is ignored.
/// - The parent hears ``Delegate/created(_:)``, ``Delegate/changed(_:)`` and ``Delegate/deleted(workspaceID:)``; a
///   created or deleted workspace's screen dismisses itself (`Effect.dismiss`).
///
/// ```swift
/// import Chat
///
/// @MainActor
/// func newWorkspace(me: String, chat: ChatService) -> Store<WorkspaceAdminFeature.State, WorkspaceAdminFeature.Action> {
///   let store = Store(initialState: WorkspaceAdminFeature.State(me: me),
///                     reducer: WorkspaceAdminFeature(client: .live(chat)))
///   store.send(.view(.nameChanged("Design")))
///   store.send(.view(.saveTapped))   // creates it; the parent hears .delegate(.created)
///   return store
/// }
/// ```
public struct WorkspaceAdminFeature: Reducer {
  /// What can happen on the screen, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Never, Response, Delegate>

  /// What the screen shows.
  public struct State: Equatable, Sendable {
    /// The workspace, as the server last answered; `nil` on the form that creates one.
    public var workspace: Workspace?
    /// The signed-in user's id.
    public var me: String
    /// The workspace's members, in the order they joined; empty until loaded.
    public var members: [Member] = []
    /// The name in the name field.
    public var name: String
    /// The email in the invite field.
    public var inviteEmail = ""
    /// Why the invite field's email cannot be sent, or `nil`.
    public var inviteError: String?
    /// The email invited last, for the screen to confirm.
    public var lastInvited: String?
    /// Whether the members are loading (the buttons do not wait for it).
    public var isLoadingMembers = false
    /// The request under way, if any: buttons that send wait for it.
    public var running: Request?
    /// Why the last request did not happen, or `nil`.
    public var failure: ScreenFailure?
    /// The question on screen before a delete or a hand-over.
    public var alert: AlertState<Confirmation>?

    /// The form that creates a workspace, for the user `me`.
    public init(me: String) {
      self.me = me
      name = ""
    }

    /// The admin screen of `workspace`, seen by the user `me`.
    public init(workspace: Workspace, me: String) {
      self.workspace = workspace
      self.me = me
      name = workspace.name
    }

    /// Whether the user owns the workspace: who may rename, delete and hand it over.
    public var isOwner: Bool { workspace?.ownerID == me }
  }

  /// A request of the screen's.
  public enum Request: Hashable, Sendable {
    /// Creating the workspace.
    case creating
    /// Renaming it.
    case renaming
    /// Deleting it.
    case deleting
    /// Inviting an email.
    case inviting
    /// Handing it to the member with this id.
    case handingOver(to: String)
  }

  /// What the user confirms in an alert.
  public enum Confirmation: Equatable, Sendable {
    /// Delete the workspace.
    case delete
    /// Hand it to `member`.
    case handOver(Member)
  }

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The screen appeared: load the members of an existing workspace.
    case task
    /// The name field changed.
    case nameChanged(String)
    /// Create the workspace, or rename it.
    case saveTapped
    /// Delete the workspace: asks first.
    case deleteTapped
    /// The invite field changed.
    case inviteEmailChanged(String)
    /// Invite the invite field's email.
    case inviteTapped
    /// Hand the workspace to `member`: asks first.
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
    /// Created.
    case created(Workspace)
    /// Renamed, or handed over: the workspace as the server has it.
    case changed(Workspace)
    /// Deleted.
    case deleted
    /// `email` was invited; the members now, when they loaded.
    case invited(email: String, members: [Member]?)
    /// The request did not happen.
    case failed(ScreenFailure)
  }

  /// What the screen tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The user created a workspace; the form dismisses itself.
    case created(Workspace)
    /// The workspace changed (a new name, a new owner).
    case changed(Workspace)
    /// The user deleted the workspace; the screen dismisses itself.
    case deleted(workspaceID: String)
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
    switch action {
    case .view(.task):
      guard let id = state.workspace?.id, !state.isLoadingMembers else { return .none }
      state.isLoadingMembers = true
      return Features.request(
        "load the members", client, response: { .response(.membersLoaded(try await $0.workspaceMembers(id))) },
        failed: { .response(.membersFailed($0)) })
    case .view(.nameChanged(let name)):
      state.name = name
      return .none
    case .view(.saveTapped):
      return save(&state)
    case .view(.deleteTapped):
      guard let workspace = state.workspace, state.running == nil else { return .none }
      state.alert = AlertState(
        title: "Delete \(workspace.name)?", message: "Its channels and direct messages go, for every member.",
        buttons: [.destructive("Delete", action: .delete), .cancel("Cancel")])
      return .none
    case .view(.inviteEmailChanged(let email)):
      state.inviteEmail = email
      state.inviteError = nil
      return .none
    case .view(.inviteTapped):
      guard let id = state.workspace?.id, state.running == nil else { return .none }
      let email = state.inviteEmail.trimmingCharacters(in: .whitespacesAndNewlines)
      state.inviteError = SessionFeature.Validation.emailError(email)
      guard state.inviteError == nil else { return .none }
      state.running = .inviting
      state.failure = nil
      return request("invite \(email)") { client in
        try await client.invite(email, id)
        // The invitation stands even if the list does not load now: the next load shows the new member.
        return .invited(email: email, members: try? await client.workspaceMembers(id))
      }
    case .view(.handOverTapped(let member)):
      guard let workspace = state.workspace, state.running == nil, member.id != state.me else { return .none }
      state.alert = AlertState(
        title: "Hand \(workspace.name) to \(member.nickname)?",
        message: "\(member.nickname) becomes its owner; you stay a member.",
        buttons: [ButtonState("Hand over", action: .handOver(member)), .cancel("Cancel")])
      return .none
    case .view(.alert(.presented(.delete))):
      guard let id = state.workspace?.id, state.running == nil else { return .none }
      state.running = .deleting
      state.failure = nil
      return request("delete the workspace") { client in
        try await client.deleteWorkspace(id)
        return .deleted
      }
    case .view(.alert(.presented(.handOver(let member)))):
      guard let id = state.workspace?.id, state.running == nil else { return .none }
      state.running = .handingOver(to: member.id)
      state.failure = nil
      return request("hand the workspace over") { .changed(try await $0.transferWorkspace(id, member.id)) }
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
    case .response(.created(let workspace)):
      state.running = nil
      state.workspace = workspace
      return .merge(.send(.delegate(.created(workspace))), .dismiss)
    case .response(.changed(let workspace)):
      state.running = nil
      state.workspace = workspace
      state.name = workspace.name
      return .send(.delegate(.changed(workspace)))
    case .response(.deleted):
      state.running = nil
      guard let id = state.workspace?.id else { return .none }
      return .merge(.send(.delegate(.deleted(workspaceID: id))), .dismiss)
    case .response(.invited(let email, let members)):
      state.running = nil
      if let members { state.members = members }
      state.lastInvited = email
      state.inviteEmail = ""
      return .none
    case .response(.failed(let failure)):
      state.running = nil
      state.failure = failure
      return .none
    case .delegate:
      return .none
    }
  }

  private func save(_ state: inout State) -> Effect<Action> {
    guard state.running == nil else { return .none }
    let name = state.name.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else {
      state.failure = ScreenFailure(.invalidInput, "A workspace needs a name.")
      return .none
    }
    state.failure = nil
    guard let workspace = state.workspace else {
      state.running = .creating
      return request("create the workspace") { .created(try await $0.createWorkspace(name)) }
    }
    guard name != workspace.name else { return .none }
    state.running = .renaming
    return request("rename the workspace") { .changed(try await $0.renameWorkspace(workspace.id, name)) }
  }

  private func request(
    _ what: String, _ response: @escaping @Sendable (ChatAdminClient) async throws -> Response
  ) -> Effect<Action> {
    Features.request(what, client, response: { .response(try await response($0)) }, failed: { .response(.failed($0)) })
  }
}
