import Chat
import Domain
import Foundation

/// A profile screen: the signed-in user's, where the nickname and the image change (the image uploaded with its
/// progress shown), or a member's, to look at (REQUIREMENTS F1–F3, A4).
///
/// - ``View/saveNicknameTapped`` sends the field's nickname (1 to 64 characters once trimmed; checked first);
///   ``View/imagePicked(_:)`` uploads the picked file, and ``State/uploadProgress`` follows it.
/// - Repeated taps do one thing: while a change runs (``State/running``), saves and picks are ignored.
/// - The server's refusal or a network failure shows as ``State/failure``; the parent hears ``Delegate/changed(_:)``
///   with each change the server kept.
/// - A member's profile changes nothing: its edits are ignored.
///
/// ```swift
/// import Domain
///
/// @MainActor
/// func myProfile(_ user: SessionUser, sessions: SessionManager) -> Store<ProfileFeature.State, ProfileFeature.Action> {
///   let store = Store(initialState: ProfileFeature.State(me: user), reducer: ProfileFeature(client: .live(sessions)))
///   store.send(.view(.nicknameChanged("Ada L.")))
///   store.send(.view(.saveNicknameTapped))
///   return store
/// }
/// ```
public struct ProfileFeature: Reducer {
  /// What can happen on the screen, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the screen shows.
  public struct State: Equatable, Sendable {
    /// Whose profile it is.
    public var subject: Subject
    /// The nickname in the field (the signed-in user's own screen).
    public var nickname: String
    /// The change under way, if any: saves and picks wait for it.
    public var running: Request?
    /// How much of the image has gone up, 0 to 1, while it uploads.
    public var uploadProgress: Double?
    /// Why the last change did not happen, or `nil`.
    public var failure: ScreenFailure?

    /// The signed-in user's own profile.
    public init(me: SessionUser) {
      subject = .me(me)
      nickname = me.nickname
    }

    /// A member's profile, to look at.
    public init(member: Member) {
      subject = .member(member)
      nickname = member.nickname
    }

    /// Whether this is the signed-in user's own profile, which they can change.
    public var isMine: Bool {
      if case .me = subject { true } else { false }
    }

    /// The nickname shown, as the server last answered.
    public var shownNickname: String {
      switch subject {
      case .me(let user): user.nickname
      case .member(let member): member.nickname
      }
    }

    /// The server's path of the profile image, if there is one.
    public var profileImage: String? {
      switch subject {
      case .me(let user): user.profileImage
      case .member(let member): member.profileImage
      }
    }
  }

  /// Whose profile a screen shows.
  public enum Subject: Hashable, Sendable {
    /// The signed-in user, who can change it.
    case me(SessionUser)
    /// Another member, to look at.
    case member(Member)
  }

  /// A change under way.
  public enum Request: Hashable, Sendable {
    /// Saving the nickname.
    case savingNickname
    /// Uploading the image.
    case uploadingImage
  }

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The nickname field changed.
    case nicknameChanged(String)
    /// Save the field's nickname.
    case saveNicknameTapped
    /// Upload the image at this file.
    case imagePicked(URL)
    /// The failure was read.
    case failureDismissed
  }

  /// What the screen learns while it works.
  public enum Internal: Equatable, Sendable {
    /// The image's upload came this far, 0 to 1.
    case uploadProgressed(Double)
  }

  /// The outcome of a change.
  public enum Response: Equatable, Sendable {
    /// The server kept the change: the user as it has them.
    case saved(SessionUser)
    /// The change did not happen.
    case failed(ScreenFailure)
  }

  /// What the screen tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The signed-in user's profile changed.
    case changed(SessionUser)
  }

  private let client: ProfileClient

  /// The screen on `client`.
  public init(client: ProfileClient) {
    self.client = client
  }

  /// Applies `action` to the screen.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.nicknameChanged(let nickname)):
      state.nickname = nickname
      return .none
    case .view(.saveNicknameTapped):
      guard state.isMine, state.running == nil else { return .none }
      let nickname = state.nickname.trimmingCharacters(in: .whitespacesAndNewlines)
      guard (1...64).contains(nickname.count) else {
        state.failure = ScreenFailure(.invalidInput, "A nickname has 1 to 64 characters.")
        return .none
      }
      guard nickname != state.shownNickname else { return .none }
      state.running = .savingNickname
      state.failure = nil
      return Features.request(
        "change the nickname", client, response: { .response(.saved(try await $0.updateNickname(nickname))) },
        failed: { .response(.failed($0)) })
    case .view(.imagePicked(let file)):
      guard state.isMine, state.running == nil else { return .none }
      state.running = .uploadingImage
      state.uploadProgress = 0
      state.failure = nil
      return .run { [client] send in
        let (progress, continuation) = AsyncStream.makeStream(of: Double.self)
        let upload = Task {
          defer { continuation.finish() }
          return try await client.updateImage(file) { continuation.yield($0) }
        }
        let user = try await withTaskCancellationHandler {
          // Each step is sent in order, before the answer; an upload that fails ends the steps too.
          for await fraction in progress { await send(.internal(.uploadProgressed(fraction))) }
          return try await upload.value
        } onCancel: {
          upload.cancel()
        }
        await send(.response(.saved(user)))
      } catch: { error, send in
        await send(.response(.failed(ScreenFailure(error, doing: "upload the profile image"))))
      }
    case .view(.failureDismissed):
      state.failure = nil
      return .none
    case .internal(.uploadProgressed(let fraction)):
      guard state.running == .uploadingImage else { return .none }
      state.uploadProgress = fraction
      return .none
    case .response(.saved(let user)):
      state.running = nil
      state.uploadProgress = nil
      state.subject = .me(user)
      state.nickname = user.nickname
      return .send(.delegate(.changed(user)))
    case .response(.failed(let failure)):
      state.running = nil
      state.uploadProgress = nil
      state.failure = failure
      return .none
    case .delegate:
      return .none
    }
  }
}
