@_exported import KeelErrors

/// Why a ``MultipartFormData`` body cannot be built or written: raised before anything is sent.
public struct MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem.
  public struct Kind: ErrorKind {
    /// The kind's name, for example `tooManyFiles`.
    public let name: String
    private init(_ name: String) { self.name = name }

    /// A file is missing, unreadable, or not a regular file.
    public static let fileUnreadable = Kind("fileUnreadable")
    /// A file changed size between being appended and being written.
    public static let fileChanged = Kind("fileChanged")
    /// More files than ``MultipartLimits/maxFiles``.
    public static let tooManyFiles = Kind("tooManyFiles")
    /// A file larger than ``MultipartLimits/maxFileSize``.
    public static let fileTooLarge = Kind("fileTooLarge")
    /// A whole body larger than ``MultipartLimits/maxBodySize``.
    public static let bodyTooLarge = Kind("bodyTooLarge")
    /// A text field larger than ``MultipartLimits/maxFieldSize``.
    public static let fieldTooLarge = Kind("fieldTooLarge")
    /// A file of a type ``MultipartLimits/allowedFileTypes`` does not list.
    public static let typeNotAllowed = Kind("typeNotAllowed")
    /// An empty field name, a content type with a line break, or a boundary RFC 2046 does not allow.
    public static let invalidPart = Kind("invalidPart")
    /// Writing the body failed (a full disk, say).
    public static let writeFailed = Kind("writeFailed")
  }

  /// The kind of problem.
  public let kind: Kind
  /// A complete sentence describing it, naming the part or file.
  public let description: String

  /// A problem of `kind`, described by `description`.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }
}
