/// A kind of failure of the error type `Owner`: what a Keel error's `kind` is compared by, and printed as its name.
///
/// Every Keel error names its kinds `Kind`, this type for itself, and declares them as static members in an extension
/// constrained to it; a struct rather than an enum, so that kinds can be added without breaking anyone's `switch`.
/// Only Keel's modules make kinds (the initializer is package-internal), and a kind of one error is a different type
/// from a kind of another, so the two never compare.
///
/// ```swift
/// import Networking
///
/// func isWorthRetrying(_ error: NetworkError) -> Bool {
///   [NetworkError.Kind.transport, .rateLimited].contains(error.kind)
/// }
/// print(NetworkError.Kind.transport)  // transport
/// ```
public struct ErrorKind<Owner>: Hashable, Sendable, CustomStringConvertible {
  /// The kind's name, for example `refused`: what it is compared by and printed as.
  public let name: String

  /// The kind named `name`; each error declares its own.
  package init(_ name: String) { self.name = name }

  /// The kind's ``name``.
  public var description: String { name }
}
