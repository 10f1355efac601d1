/// What a ``MultipartFormData`` body may hold: checked by ``MultipartFormData/validate(_:)`` and again as the body is
/// written, so that nothing over a limit is written or sent.
///
/// The defaults suit an API that takes a few attachments with a message; a chat backend that takes at most five images
/// says so:
///
/// ```swift
/// let chatImages = MultipartLimits(maxFiles: 5, maxFileSize: 10 << 20, allowedFileTypes: MultipartLimits.imageTypes)
/// ```
public struct MultipartLimits: Sendable, Hashable {
  /// The most files the body may carry.
  public var maxFiles: Int
  /// The largest file, in bytes.
  public var maxFileSize: Int64
  /// The largest whole body, in bytes, boundaries and part headers included.
  public var maxBodySize: Int64
  /// The largest text field, in UTF-8 bytes.
  public var maxFieldSize: Int
  /// The content types a file may have (`image/png`), or `nil` for any.
  public var allowedFileTypes: Set<String>?

  /// The image types ``MultipartFormData`` recognizes from a file's first bytes: PNG, JPEG, GIF, WebP and HEIC.
  public static let imageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/heic"]

  /// Limits; by default at most 10 files of 20 MiB each, 100 MiB in all, text fields of 1 MiB, any type.
  public init(
    maxFiles: Int = 10, maxFileSize: Int64 = 20 << 20, maxBodySize: Int64 = 100 << 20, maxFieldSize: Int = 1 << 20,
    allowedFileTypes: Set<String>? = nil
  ) {
    self.maxFiles = maxFiles
    self.maxFileSize = maxFileSize
    self.maxBodySize = maxBodySize
    self.maxFieldSize = maxFieldSize
    self.allowedFileTypes = allowedFileTypes
  }
}
