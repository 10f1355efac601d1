@_exported import KeelErrors

/// Why a ``MultipartFormData`` body cannot be built or written: raised before anything is sent.
public struct MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem.
  public typealias Kind = ErrorKind<MultipartError>

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

extension ErrorKind where Owner == MultipartError {
  /// A file is missing, unreadable, or not a regular file.
  public static var fileUnreadable: Self { Self("fileUnreadable") }
  /// A file changed size between being appended and being written.
  public static var fileChanged: Self { Self("fileChanged") }
  /// More files than ``MultipartLimits/maxFiles``.
  public static var tooManyFiles: Self { Self("tooManyFiles") }
  /// A file larger than ``MultipartLimits/maxFileSize``.
  public static var fileTooLarge: Self { Self("fileTooLarge") }
  /// A whole body larger than ``MultipartLimits/maxBodySize``.
  public static var bodyTooLarge: Self { Self("bodyTooLarge") }
  /// A text field larger than ``MultipartLimits/maxFieldSize``.
  public static var fieldTooLarge: Self { Self("fieldTooLarge") }
  /// A file of a type ``MultipartLimits/allowedFileTypes`` does not list.
  public static var typeNotAllowed: Self { Self("typeNotAllowed") }
  /// An empty field name, a content type with a line break, or a boundary RFC 2046 does not allow.
  public static var invalidPart: Self { Self("invalidPart") }
  /// Writing the body failed (a full disk, say).
  public static var writeFailed: Self { Self("writeFailed") }
}
