import Domain
import Foundation
import KeelConcurrency
import Logging

/// The accounts of one chat directory: the signed-in user's, opened on first use, and those signed out of, which the
/// service retires when the session changes hands. Every other piece of the chat asks it whose chat is current.
final class ChatAccounts: Sendable {
  let sessions: SessionManager
  /// The chat's directory: each account's in `accounts/` below it.
  let root: URL
  let configuration: ChatConfiguration
  let now: @Sendable () -> Date
  let logger: Logger
  private let state = Locked(State())

  private struct State {
    /// The signed-in user's; `nil` until first used, and while nobody is signed in.
    var current: ChatAccount?
    /// Accounts signed out of, to be retired.
    var ended: [ChatAccount] = []
  }

  init(
    sessions: SessionManager, root: URL, configuration: ChatConfiguration, now: @escaping @Sendable () -> Date,
    logger: Logger
  ) {
    self.sessions = sessions
    self.root = root
    self.configuration = configuration
    self.now = now
    self.logger = logger
  }

  /// The signed-in user's id, or `ChatError.Kind.notSignedIn`.
  func me() throws -> String {
    guard let user = sessions.currentUser else {
      throw ChatError(.notSignedIn, "Nobody is signed in: sign in before using the chat; nothing was sent.")
    }
    return user.id
  }

  /// The signed-in user's chat on this device, opened on first use.
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when it cannot be opened.
  func current() throws -> ChatAccount {
    try account(of: me())
  }

  /// The user whose account is the current one, if one is open.
  var currentUserID: String? { state.withLock { $0.current?.userID } }

  /// Whether `account` is still the current one.
  func isCurrent(_ account: ChatAccount) -> Bool { state.withLock { $0.current === account } }

  /// `userID`'s chat: the current account when it is theirs; otherwise one opened now, which becomes the current one
  /// when `userID` is signed in (the one it replaces is left to ``takeEnded(keeping:)``).
  func account(of userID: String) throws -> ChatAccount {
    try state.withLock { state in
      if let current = state.current, current.userID == userID { return current }
      let account: ChatAccount
      do {
        account = try ChatAccount(userID: userID, root: root, configuration: configuration, now: now)
      } catch {
        throw ChatError.storage(error, doing: "open the chat's store and outbox in \(root.path)")
      }
      if let setAside = account.store.setAside {
        logger.warning("The chat store was set aside (\(setAside.reason)); a new one starts empty.")
      }
      if sessions.currentUser?.id == userID {
        if let replaced = state.current { state.ended.append(replaced) }
        state.current = account
      }
      return account
    }
  }

  /// The accounts that ended since the last call: the current one too when `userID`, the user signed in now, is not
  /// its user. One signed out and in again keeps their account.
  func takeEnded(keeping userID: String?) -> [ChatAccount] {
    state.withLock { state in
      if let current = state.current, current.userID != userID {
        state.ended.append(current)
        state.current = nil
      }
      defer { state.ended = [] }
      return state.ended.filter { $0.userID != userID }
    }
  }
}
