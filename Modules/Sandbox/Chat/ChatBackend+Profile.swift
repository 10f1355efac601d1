import Foundation
import HTTPTypes
import KeelConcurrency

extension ChatBackend {
  /// The profile image routes (SandboxAPI §2): upload one's own, and fetch anyone's.
  var profileRoutes: [Route] {
    [
      Route(.post, "/v1/me/image", maxBodySize: Self.maxImageSize + (1 << 20), handler: uploadProfileImage),
      Route(.get, "/v1/profile-images/:image", handler: profileImage),
    ]
  }

  /// `POST /v1/me/image`, multipart with one `image` file (PNG, JPEG, GIF or WebP by its bytes, 8 MiB at most): the
  /// signed-in user's profile image, replacing any earlier one. 200 with the user.
  private func uploadProfileImage(_ request: SandboxRequest) throws -> SandboxResponse {
    let session = try auth.authenticate(request)
    let form = try MultipartBody(request.body, contentType: request.header("Content-Type"))
    let files = form.files("image")
    guard files.count == 1, let file = files.first else {
      throw BackendError.malformed("a profile image is one file in the field image")
    }
    guard let type = ChatBlobs.imageType(of: file.data) else {
      throw BackendError(
        status: .badRequest, code: "E11",
        message: "\(file.filename ?? "The file") is not a PNG, JPEG, GIF or WebP image.")
    }
    guard file.data.count <= Self.maxImageSize else {
      throw BackendError(status: .badRequest, code: "E12", message: "The image is over \(Self.maxImageSize >> 20) MiB.")
    }
    let id = state.withLock { $0.newID("p") }
    try blobs.store(file.data, contentType: type, conversationID: Self.profileScope, as: id)
    let (account, replaced) = try auth.directory.setProfileImage(email: session.email, to: id)
    if let replaced { blobs.remove([replaced]) }
    return .json(account.json)
  }

  /// `GET /v1/profile-images/{id}`: any signed-in user's profile image, to any signed-in user; ETag and 304.
  private func profileImage(_ request: SandboxRequest) throws -> SandboxResponse {
    _ = try auth.account(of: request)
    guard let image = blobs.blob(request.parameter("image") ?? ""), image.conversationID == Self.profileScope
    else { throw BackendError.notFound("The image") }
    return ChatBlobs.response(image, ifNoneMatch: request.header("If-None-Match"))
  }

  /// The scope profile images are kept under among the chat's images: no conversation has it.
  static let profileScope = ""
}
