/// A kind of failure: what a Keel error's `kind` is compared by, and printed as its name.
///
/// Every Keel error type nests its own `Kind`, a struct rather than an enum, so that kinds can be added without
/// breaking anyone's `switch`; this protocol is what they share.
///
/// ```swift
/// struct UploadError: Error {
///   struct Kind: ErrorKind {
///     let name: String
///     static let tooLarge = Kind(name: "tooLarge")
///   }
///   let kind: Kind
/// }
///
/// let kind = UploadError(kind: .tooLarge).kind
/// assert(kind == .tooLarge && kind.description == "tooLarge")
/// ```
public protocol ErrorKind: Hashable, Sendable, CustomStringConvertible {
  /// The kind's name, for example `refused`: what it is compared by and printed as.
  var name: String { get }
}

extension ErrorKind {
  /// The kind's ``name``.
  public var description: String { name }
}
