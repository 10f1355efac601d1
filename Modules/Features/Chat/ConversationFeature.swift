import Chat
import Domain
import Foundation

/// One conversation on screen (REQUIREMENTS C3–C5, F2–F3): its messages from the store at once, then caught up and
/// live; older pages on demand; a draft of text and up to five images sent through the outbox, each message pending,
/// then sent or failed (and sent again on request); leaving marks it read, then tells the parent.
///
/// - ``View/task`` opens the conversation and follows its snapshots until the feature goes: the chat's socket
///   is connected while a conversation is shown, and closed when the last one is dismissed.
/// - ``View/sendTapped`` sends the draft and clears it; a message the chat refuses before queueing it (too
///   long, a file that is not an image) puts the draft back with the reason, so nothing typed is lost.
/// - ``View/imagesPicked(_:)`` keeps at most ``maxImages``; more set ``State/errorMessage``.
/// - ``View/backTapped`` marks the newest message read, then sends ``Delegate/dismissed``.
public struct ConversationFeature: Reducer {
  /// What the conversation's screen shows.
  public struct State: Equatable, Sendable {
    /// The conversation.
    public var conversation: Conversation
    /// The signed-in user's id: their messages show on the other side.
    public var me: String
    /// The messages shown, oldest first, pending and failed ones in their place.
    public var messages: [Message]
    /// How current they are.
    public var status: ConversationSnapshot.Status
    /// The text typed.
    public var draft: String
    /// The images to send with it.
    public var draftImages: [URL]
    /// Whether an older page is on its way.
    public var isLoadingOlder: Bool
    /// Whether older messages may remain.
    public var hasOlder: Bool
    /// What went wrong last (a send refused, a page that did not load), or `nil`.
    public var errorMessage: String?

    /// A conversation about to open.
    public init(
      conversation: Conversation, me: String, messages: [Message] = [],
      status: ConversationSnapshot.Status = .stored, draft: String = "", draftImages: [URL] = [],
      isLoadingOlder: Bool = false, hasOlder: Bool = true, errorMessage: String? = nil
    ) {
      self.conversation = conversation
      self.me = me
      self.messages = messages
      self.status = status
      self.draft = draft
      self.draftImages = draftImages
      self.isLoadingOlder = isLoadingOlder
      self.hasOlder = hasOlder
      self.errorMessage = errorMessage
    }

    /// Whether the draft can be sent: some text or an image.
    public var canSend: Bool {
      !draftImages.isEmpty || !draft.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
  }

  /// What can happen to the conversation, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Internal, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The screen appeared: open the conversation and follow it.
    case task
    /// The draft's text changed.
    case draftChanged(String)
    /// Images were picked for the draft.
    case imagesPicked([URL])
    /// The draft's image at `index` was taken off.
    case imageRemoved(at: Int)
    /// Send the draft.
    case sendTapped
    /// Send a failed message again.
    case resendTapped(Message)
    /// Show older messages (scrolled to the top).
    case loadOlderTapped
    /// Leave the conversation.
    case backTapped
  }

  /// What the chat tells the feature.
  public enum Internal: Equatable, Sendable {
    /// The conversation's messages or status changed.
    case snapshot(ConversationSnapshot)
  }

  /// The outcome of something the feature asked for.
  public enum Response: Equatable, Sendable {
    /// The chat refused the draft `text` with `images` before queueing it, for the reason in `message`.
    case sendFailed(text: String, images: [URL], message: String)
    /// The resend failed, for the reason in `message`.
    case resendFailed(message: String)
    /// An older page loaded; `hasMore` says whether more may remain.
    case olderLoaded(hasMore: Bool)
    /// An older page did not load, for the reason in `message`.
    case olderFailed(message: String)
  }

  /// What the conversation tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The user left, and the conversation was marked read: remove the feature.
    case dismissed
  }

  /// The most images a message carries.
  public static let maxImages = 5

  private struct FollowID: Hashable, Sendable {}

  private let client: ChatClient

  /// A conversation feature on `client`.
  public init(client: ChatClient) {
    self.client = client
  }

  /// Applies `action` to the conversation.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(let view):
      return reduce(into: &state, view: view)
    case .internal(.snapshot(let snapshot)):
      state.messages = snapshot.messages
      state.status = snapshot.status
      return .none
    case .response(.sendFailed(let text, let images, let message)):
      // Put back what was typed, unless the user has typed something new since.
      if state.draft.isEmpty && state.draftImages.isEmpty {
        state.draft = text
        state.draftImages = images
      }
      state.errorMessage = message
      return .none
    case .response(.resendFailed(let message)):
      state.errorMessage = message
      return .none
    case .response(.olderLoaded(let hasMore)):
      state.isLoadingOlder = false
      state.hasOlder = hasMore
      return .none
    case .response(.olderFailed(let message)):
      state.isLoadingOlder = false
      state.errorMessage = message
      return .none
    case .delegate:
      return .none
    }
  }

  private func reduce(into state: inout State, view: View) -> Effect<Action> {
    let id = state.conversation.id
    switch view {
    case .task:
      return .run { [client] send in
        for await snapshot in client.conversation(id) { await send(.internal(.snapshot(snapshot))) }
      }
      .cancellable(id: FollowID(), cancelInFlight: true)
    case .draftChanged(let text):
      state.draft = text
      return .none
    case .imagesPicked(let images):
      state.draftImages += images
      state.errorMessage = nil
      if state.draftImages.count > Self.maxImages {
        state.draftImages = Array(state.draftImages.prefix(Self.maxImages))
        state.errorMessage = "A message carries at most \(Self.maxImages) images."
      }
      return .none
    case .imageRemoved(let index):
      guard state.draftImages.indices.contains(index) else { return .none }
      state.draftImages.remove(at: index)
      return .none
    case .sendTapped:
      guard state.canSend else { return .none }
      let (text, images) = (state.draft, state.draftImages)
      state.draft = ""
      state.draftImages = []
      state.errorMessage = nil
      return .run { [client] _ in
        _ = try await client.send(text, images, id)
      } catch: { error, send in
        await send(.response(.sendFailed(text: text, images: images, message: Self.words(error))))
      }
    case .resendTapped(let message):
      state.errorMessage = nil
      return .run { [client] _ in
        try await client.resend(message)
      } catch: { error, send in
        await send(.response(.resendFailed(message: Self.words(error))))
      }
    case .loadOlderTapped:
      guard !state.isLoadingOlder, state.hasOlder else { return .none }
      state.isLoadingOlder = true
      return .run { [client] send in
        await send(.response(.olderLoaded(hasMore: try await client.loadOlder(id))))
      } catch: { error, send in
        await send(.response(.olderFailed(message: Self.words(error))))
      }
    case .backTapped:
      let newest = state.messages.last { $0.state == .sent }?.id
      return .run { [client] send in
        // Leaving marks read; a failure to tell the server only leaves the count for next time.
        if let newest { try? await client.markRead(id, newest) }
        await send(.delegate(.dismissed))
      }
    }
  }

  /// An error as a sentence for the user.
  static func words(_ error: any Error) -> String {
    (error as? ChatError)?.description ?? "\(error)"
  }
}
