import Foundation
@_exported import KeelErrors

/// Why a storage operation failed, in a form a caller can act on: a full disk, a permission, a corrupt file, a value
/// that cannot be encoded. Never a crash.
///
/// A struct rather than an enum so that kinds can be added without breaking anyone's `switch`: compare ``kind``.
///
/// ```swift
/// import Foundation
///
/// let settings = try FileKeyValueStore(url: FileManager.default.temporaryDirectory.appending(path: "settings.json"))
/// do {
///   try settings.set("dark", forKey: "theme")
/// } catch let error as PersistenceError where error.kind == .diskFull {
///   print("Storage is full: \(error)")   // tell the user; the old settings are intact
/// }
/// ```
public struct PersistenceError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public typealias Kind = ErrorKind<PersistenceError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// The file or directory involved, if any.
  public var path: String?
  /// The error that caused this one, if any.
  public var underlying: (any Error)?

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String, path: String? = nil, underlying: (any Error)? = nil) {
    self.kind = kind
    self.description = description
    self.path = path
    self.underlying = underlying
  }

  /// The error for a failed system call: `ENOSPC` is `Kind.diskFull`, `EACCES`, `EPERM` and `EROFS` are
  /// `Kind.permissionDenied`, anything else `Kind.io`.
  ///
  /// - Parameters:
  ///   - code: The `errno` value.
  ///   - operation: What was being done, for example `write the entry`.
  ///   - path: The file or directory.
  ///   - explanation: What went wrong, where the system's words for `code` would mislead (a symbolic link refused
  ///     reads "Too many levels of symbolic links").
  public static func posix(_ code: Int32, while operation: String, path: String, explanation: String? = nil)
    -> PersistenceError
  {
    let reason = explanation ?? String(cString: strerror(code))
    return PersistenceError(
      kind(ofPOSIX: code), "Could not \(operation) at \(path): \(reason).", path: path,
      underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
  }

  /// `error` as a persistence error: itself if it is one, otherwise classified by its POSIX or Cocoa code.
  public static func wrapping(_ error: any Error, while operation: String, path: String) -> PersistenceError {
    if let error = error as? PersistenceError { return error }
    let nsError = error as NSError
    var code: Int32?
    if nsError.domain == NSPOSIXErrorDomain {
      code = Int32(nsError.code)
    } else if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
      code = Int32(posix.code)
    }
    var kind = code.map(Self.kind(ofPOSIX:)) ?? .io
    if code == nil, nsError.domain == NSCocoaErrorDomain {
      switch CocoaError.Code(rawValue: nsError.code) {
      case .fileWriteOutOfSpace: kind = .diskFull
      case .fileReadNoPermission, .fileWriteNoPermission, .fileWriteVolumeReadOnly: kind = .permissionDenied
      case .fileReadCorruptFile: kind = .corrupted
      default: break
      }
    }
    return PersistenceError(
      kind, "Could not \(operation) at \(path): \(nsError.localizedDescription)", path: path, underlying: error)
  }

  private static func kind(ofPOSIX code: Int32) -> Kind {
    switch code {
    case ENOSPC, EDQUOT: .diskFull
    case EACCES, EPERM, EROFS: .permissionDenied
    default: .io
    }
  }
}

extension ErrorKind where Owner == PersistenceError {
  /// The input was refused before anything was written (an empty key, a value over a size limit, …).
  public static var invalidInput: Self { Self("invalidInput") }
  /// The device has no space left.
  public static var diskFull: Self { Self("diskFull") }
  /// The process may not read or write the file or directory.
  public static var permissionDenied: Self { Self("permissionDenied") }
  /// Stored data is damaged: a truncated file, a failed integrity check, a file that does not decrypt.
  public static var corrupted: Self { Self("corrupted") }
  /// A value could not be encoded for storage.
  public static var encoding: Self { Self("encoding") }
  /// Stored data could not be decoded into the requested type.
  public static var decoding: Self { Self("decoding") }
  /// A store is full and its policy is to refuse new entries.
  public static var capacityExceeded: Self { Self("capacityExceeded") }
  /// Any other input/output failure; ``PersistenceError/underlying`` has the detail.
  public static var io: Self { Self("io") }
}
