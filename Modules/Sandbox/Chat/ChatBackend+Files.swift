import Foundation
import HTTPTypes
import KeelConcurrency
import KeelFiles

/// The files of chat messages (SandboxAPI §7): up to five of any type beside a message's images, sent in its
/// multipart body, served to the members of its conversation.
extension ChatBackend {
  /// The most files a message carries, beside its images.
  static let maxFiles = 5
  /// The largest file: 25 MiB.
  static let maxFileSize = 25 << 20
  /// The most bytes of files one message carries.
  static let maxFilesSize = 50 << 20

  /// `GET /v1/chat-files/:file`, for members of the file's conversation: the bytes with their type and `ETag`; 304 for
  /// a matching `If-None-Match`. Anyone else gets the 404 of a file that does not exist.
  func file(_ request: SandboxRequest) throws -> SandboxResponse {
    let me = try auth.account(of: request).id
    let id = request.parameter("file") ?? ""
    guard id.hasPrefix("f"), let file = blobs.blob(id),
      state.withLock({ $0.conversations[file.conversationID]?.memberIDs.contains(me) }) == true
    else { throw BackendError.notFound("The file") }
    return ChatBlobs.response(file, ifNoneMatch: request.header("If-None-Match"))
  }

  /// The `files` parts of a message, each with its name made safe and its content type; E13 for more than
  /// ``maxFiles``, E14 for one over ``maxFileSize``, E15 for more than ``maxFilesSize`` together.
  static func attachments(_ parts: [MultipartBody.Part]) throws -> [(name: String, type: String, data: Data)] {
    guard parts.count <= maxFiles else {
      throw BackendError(status: .badRequest, code: "E13", message: "A message carries at most \(maxFiles) files.")
    }
    for part in parts where part.data.count > maxFileSize {
      throw BackendError(
        status: .badRequest, code: "E14",
        message: "\(SafeFileName.sanitized(part.filename ?? "A file")) is over \(maxFileSize >> 20) MiB.")
    }
    guard parts.reduce(0, { $0 + $1.data.count }) <= maxFilesSize else {
      throw BackendError(
        status: .badRequest, code: "E15", message: "A message's files are \(maxFilesSize >> 20) MiB together at most.")
    }
    return parts.map { part in
      (SafeFileName.sanitized(part.filename ?? "file"), ChatBlobs.fileType(part.contentType), part.data)
    }
  }
}
