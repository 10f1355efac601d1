import Domain
@_exported import KeelErrors

/// Why a chat call failed, in a form a caller can act on: compare ``kind``, then read ``requestFailure`` for what the
/// server or the transport said (its `RequestFailure.serverCode` is the backend's, such as `E403` or `E11`).
///
/// ```swift
/// func explain(_ error: any Error) -> String {
///   guard let error = error as? ChatError else { return "\(error)" }
///   switch error.kind {
///   case .invalidInput: return "Check the message: \(error.description)"
///   case .refused where error.requestFailure?.serverCode == "E403": return "You are not a member."
///   default: return error.description
///   }
/// }
/// ```
///
/// A struct rather than an enum, so that kinds can be added without breaking anyone's `switch`. A cancelled call
/// throws `CancellationError`.
public struct ChatError: ServiceError {
  /// The kind of failure.
  public typealias Kind = ErrorKind<ChatError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// What the server or the transport said, for `Kind.refused` and `Kind.requestFailed`.
  public var requestFailure: RequestFailure?
  /// The error underneath, if any (the store's, the HTTP client's).
  public var underlying: (any Error)?
  /// What an `Kind.ambiguous` name could mean, for the caller to choose from.
  public var candidates: [Member] = []

  /// An error of `kind` described by `description`, a complete sentence.
  public init(
    _ kind: Kind, _ description: String, requestFailure: RequestFailure? = nil, underlying: (any Error)? = nil
  ) {
    self.kind = kind
    self.description = description
    self.requestFailure = requestFailure
    self.underlying = underlying ?? requestFailure?.underlying
  }

  /// A failed request as a chat error: a 4xx the server explained is `Kind.refused`, the rest
  /// `Kind.requestFailed`.
  static func request(_ failure: RequestFailure, doing what: String) -> ChatError {
    let refused =
      failure.kind == .server && (400..<500).contains(failure.statusCode ?? 0)
      && failure.statusCode != 408 && failure.statusCode != 429
    return ChatError(refused ? .refused : .requestFailed, "Cannot \(what): \(failure)", requestFailure: failure)
  }

  /// A server that keeps saying a conversation has more messages while its pages bring nothing new: paging stops
  /// rather than ask forever.
  static func pagingStalled(_ conversationID: String) -> ChatError {
    ChatError(
      .requestFailed,
      "The server's pages of \(conversationID) bring nothing new although it says there are more; stopped paging.")
  }

  /// A store failure as a chat error.
  static func storage(_ error: any Error, doing what: String) -> ChatError {
    ChatError(.storage, "Cannot \(what): the local chat store failed (\("\(error)".clause)).", underlying: error)
  }
}

extension ErrorKind where Owner == ChatError {
  /// The input cannot be right (an empty name, more than five images, a file that is not an image, a text too
  /// long); nothing was sent or written.
  public static var invalidInput: Self { Self("invalidInput") }
  /// The server refused the call for good (not a member, not the owner, no such id, a duplicate name): sending it
  /// again changes nothing.
  public static var refused: Self { Self("refused") }
  /// The call did not get through (no connection, a timeout, a server error, the session over); the outbox sends
  /// a message again by itself, anything else the caller may try again.
  public static var requestFailed: Self { Self("requestFailed") }
  /// The user may not do this: edit or delete another member's message; nothing was sent.
  public static var notPermitted: Self { Self("notPermitted") }
  /// The local store or the outbox could not read or write.
  public static var storage: Self { Self("storage") }
  /// Nobody is signed in; nothing was sent.
  public static var notSignedIn: Self { Self("notSignedIn") }
  /// No chat backend is configured (`KeelConfiguration.backendBaseURL` is `nil`); nothing was sent.
  public static var notConfigured: Self { Self("notConfigured") }
  /// A name (a workspace's, a channel's, a DM partner's) names nothing the user can see.
  public static var notFound: Self { Self("notFound") }
  /// A name names more than one thing (a nickname two DM partners share); ``ChatError/candidates`` lists them.
  public static var ambiguous: Self { Self("ambiguous") }
}

/// Runs `body` on a store, its failure as `ChatError.Kind.storage` doing `what` (a ``ChatError`` passes as it is).
func stored<Value>(_ what: String, _ body: () async throws -> Value) async throws -> Value {
  do {
    return try await body()
  } catch let error as ChatError {
    throw error
  } catch {
    throw ChatError.storage(error, doing: what)
  }
}
