import Domain
import Foundation
import KeelConcurrency
import Networking

extension ChatService {
  /// The signed-in account's image loader: chat images (`/v1/chat-images/…`) and profile images
  /// (`/v1/profile-images/…`) load through it with the session's access token (its client is the session's), cached
  /// in memory and on disk like any image and revalidated with their ETags. Each account has its own, its disk level
  /// in the account's directory: a sign-out forgets it, and no account is ever answered from another's cache.
  ///
  /// ```swift
  /// import Chat
  /// import Foundation
  ///
  /// func firstImage(of message: Message, on chat: ChatService) async throws -> Data? {
  ///   guard let path = message.images.first else { return nil }
  ///   return try await chat.image(at: path)  // the bytes, from memory, disk or the server
  /// }
  /// ```
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when its disk level cannot be opened.
  public var imageLoader: ImageLoader {
    get throws {
      let account = try accounts.current()
      let (loader, replaced) = try loaders.withLock { loaders -> (ImageLoader, [ImageLoader]) in
        if let loader = loaders[account.userID] { return (loader, []) }
        let loader: ImageLoader
        do {
          loader = try ImageLoader(
            client: sessions.client, directory: account.imageCache, limits: configuration.imageCacheLimits, now: now,
            logger: logger)
        } catch {
          throw ChatError.storage(error, doing: "open the image cache of the chat")
        }
        defer { loaders = [account.userID: loader] }
        return (loader, Array(loaders.values))
      }
      // Another account's, not yet dropped: its memory goes now, whoever still holds it.
      for old in replaced { old.clearMemory() }
      return loader
    }
  }

  /// The image at `path` on the chat backend (a message's image, a member's profile image), or at an absolute URL
  /// on the backend's origin, through ``imageLoader``.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a path or URL not on the backend, before anything is sent;
  ///   `ChatError.Kind.notSignedIn`; otherwise `ImageLoaderError` (a member's image asked for by someone who is not
  ///   a member is `ImageLoaderError.Kind.requestFailed` with the server's 404).
  public func image(at path: String) async throws -> Data {
    try await imageLoader.data(for: backendURL(path, of: "an image"))
  }

  /// `path` resolved against the backend, or an absolute URL on the backend's origin.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for anything else, naming it as `what` (`an image`), before anything is
  ///   sent.
  func backendURL(_ path: String, of what: String) throws -> URL {
    guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL,
      url.scheme == baseURL.scheme, url.host == baseURL.host, url.port == baseURL.port
    else {
      throw ChatError(.invalidInput, "\(path) is not \(what) of the chat backend \(baseURL); nothing was sent.")
    }
    return url
  }
}
