import Foundation

/// Why the image loader refused a request or a configuration before sending or storing anything.
///
/// Failures of the transfer itself arrive as the client's `NetworkError`; this error covers only bad input. A struct
/// rather than an enum so that kinds can be added without breaking anyone's `switch`: compare ``kind``.
///
/// ```swift
/// catch let error as ImageLoaderError where error.kind == .invalidURL { showBrokenImage() }
/// ```
public struct ImageLoaderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kind of failure.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The URL has no `http` or `https` scheme, or no host; nothing was sent.
    public static let invalidURL = Kind("invalidURL")
    /// The server answered with something that is not an image (an HTML page, a JSON error with status 200): it
    /// is neither returned nor cached.
    public static let notAnImage = Kind("notAnImage")
    /// A cache limit or a max-age is negative, or the disk level's size limit is not positive.
    public static let invalidConfiguration = Kind("invalidConfiguration")

    /// The kind's name, for example `invalidURL`.
    public var description: String { name }
  }

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  static func invalidURL(_ url: URL, _ reason: String) -> ImageLoaderError {
    ImageLoaderError(.invalidURL, "Cannot load an image from \(ImageLoader.describe(url)): \(reason).")
  }
}
