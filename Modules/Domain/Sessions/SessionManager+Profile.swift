import Foundation
import KeelConcurrency
import KeelErrors
import KeelFiles
import Logging
import Networking
import Persistence

extension MultipartLimits {
  /// The image types the chat backend takes, in a message and as a profile image (SandboxAPI §7): PNG, JPEG, GIF and
  /// WebP. The client's copy of the contract; the Sandbox keeps its own, as a server would.
  package static let chatBackendImageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

  /// Whether a file that starts with `head` (its first 16 bytes) is an image the chat backend takes. The backend goes
  /// by the bytes alone, whatever the file's name, and so does this: a form's type falls back to the extension.
  package static func isChatBackendImage(head: Data) -> Bool {
    MultipartFormData.sniffedContentType(head).map(chatBackendImageTypes.contains) ?? false
  }
}

extension SessionManager {
  /// What a profile image may be, as the backend takes it (SandboxAPI §7): one PNG, JPEG, GIF or WebP image of at most
  /// 8 MiB.
  public static let profileImageLimits = MultipartLimits(
    maxFiles: 1, maxFileSize: 8 << 20, maxBodySize: 9 << 20, maxFieldSize: 1_024,
    allowedFileTypes: MultipartLimits.chatBackendImageTypes)

  /// Changes the signed-in user's nickname (`PATCH /v1/me`). The session's user becomes the server's answer:
  /// ``currentUser`` and ``states()`` (a new ``SessionState/loggedIn(_:)``) show it, and a restart keeps it.
  ///
  /// - Returns: The user as the server now has them.
  /// - Throws: ``SessionError``: `SessionError.Kind.invalidInput` for a nickname that is empty or longer than 64
  ///   characters once trimmed, before anything is sent; `SessionError.Kind.requestFailed` when the server refuses it
  ///   or cannot be reached, with the kind `RequestFailure.Kind.sessionExpired` when nobody is signed in.
  @discardableResult
  public func updateNickname(_ nickname: String) async throws -> SessionUser {
    let nickname = nickname.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...64).contains(nickname.count) else {
      throw SessionError(.invalidInput, "A nickname has 1 to 64 characters once trimmed; nothing was sent.")
    }
    let baseURL = try configuredBackend(for: "change the nickname")
    let user: SessionUser = try await RequestFailure.wrapping(SessionError.requestFailed) {
      try await client.send(.json(AuthRouter(.updateProfile(nickname: nickname), baseURL: baseURL)))
    }
    return keepProfile(user)
  }

  /// Uploads the signed-in user's profile image from `file` (`POST /v1/me/image`); the session's user gets its path
  /// in `SessionUser.profileImage`, as ``updateNickname(_:)`` keeps a nickname.
  ///
  /// - Parameters:
  ///   - file: The image.
  ///   - progress: Called as the form's bytes go out, with how far the upload has come (each attempt from zero). With
  ///     it, the form is written to an owner-only temporary file, sent from there, and removed after.
  /// - Returns: The user as the server now has them.
  /// - Throws: ``SessionError``: `SessionError.Kind.invalidInput` for a file that is missing, over 8 MiB, or not a
  ///   PNG, JPEG, GIF or WebP image by its bytes, before anything is sent; otherwise as ``updateNickname(_:)``.
  @discardableResult
  public func updateProfileImage(
    _ file: URL, progress: (@Sendable (TransferProgress) -> Void)? = nil
  ) async throws -> SessionUser {
    var form = MultipartFormData()
    let body: Data
    do throws(MultipartError) {
      try form.append(fileAt: file, name: "image")
      body = try form.encoded(limits: Self.profileImageLimits)
    } catch {
      throw SessionError(.invalidInput, "Cannot use this profile image: \(error.description.clause); nothing was sent.")
    }
    let head = body.range(of: Data("\r\n\r\n".utf8)).map { body[$0.upperBound...].prefix(16) } ?? Data()
    guard MultipartLimits.isChatBackendImage(head: Data(head)) else {
      throw SessionError(
        .invalidInput, "\(file.path) is not a PNG, JPEG, GIF or WebP image, whatever its name; nothing was sent.")
    }
    let baseURL = try configuredBackend(for: "upload a profile image")
    guard let progress else {
      let route = AuthRouter.Route.updateProfileImage(.data(body, contentType: form.contentType))
      return try await sendProfile(APIRequest.json(AuthRouter(route, baseURL: baseURL)))
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keel-upload-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let formFile = folder.appendingPathComponent("profile-image.form")
    do throws(FileSystemError) {
      try OwnerOnlyFiles.makeDirectory(folder)
      try OwnerOnlyFiles.write(body, to: formFile, synchronously: false)
    } catch {
      throw SessionError(.storage, "Cannot stage the profile image for upload: \(error.description.clause).")
    }
    let route = AuthRouter.Route.updateProfileImage(.file(formFile, contentType: form.contentType))
    var request = APIRequest<SessionUser>.json(AuthRouter(route, baseURL: baseURL))
    request.progress = progress
    return try await sendProfile(request)
  }

  /// Sends a profile change and keeps the user it answers.
  private func sendProfile(_ request: APIRequest<SessionUser>) async throws -> SessionUser {
    let user: SessionUser = try await RequestFailure.wrapping(SessionError.requestFailed) {
      try await client.send(request)
    }
    return keepProfile(user)
  }

  /// Makes `user` the session's user, kept in the secure store and published, if the session is still theirs; a
  /// failure to keep it is logged (the server has the change, and `/v1/me` tells it again).
  private func keepProfile(_ user: SessionUser) -> SessionUser {
    let failure: (any Error)? = session.withLock { current in
      guard var changed = current, changed.user.id == user.id else { return nil }
      changed.user = user
      current = changed
      broadcast.publish(.loggedIn(user))
      do {
        try secureStore.set(changed, forKey: Self.storageKey)
        return nil
      } catch {
        return error
      }
    }
    if let failure { logger.warning("The new profile cannot be kept in the secure store: \(failure)") }
    return user
  }
}
