import Foundation
@_exported import KeelErrors

/// Why the image loader could not give an image: bad input or configuration (nothing sent or stored), an answer that
/// is not an image, or a request that failed (``requestFailure`` says how). A cancelled caller gets
/// `CancellationError`.
///
/// A struct rather than an enum so that kinds can be added without breaking anyone's `switch`: compare ``kind``. Two
/// errors are equal when their kind and description are.
///
/// ```swift
/// import Foundation
/// import Networking
///
/// let loader = try ImageLoader(client: HTTPClient(), directory: URL(fileURLWithPath: "myapp-caches/images"))
/// do {
///   _ = try await loader.data(for: URL(string: "https://cdn.example.com/avatars/alice.png")!)
/// } catch let error as ImageLoaderError where error.kind == .invalidURL {
///   // show the broken-image placeholder
/// } catch let error as ImageLoaderError where error.requestFailure?.kind == .transport {
///   // show that the device is offline
/// }
/// ```
public struct ImageLoaderError: ServiceError, Equatable {
  /// The kind of failure.
  public typealias Kind = ErrorKind<ImageLoaderError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// For `Kind.requestFailed`: why the request failed, with the HTTP status and the server's code when it answered.
  public var requestFailure: RequestFailure?

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  /// Whether both are of one kind, described alike.
  public static func == (lhs: ImageLoaderError, rhs: ImageLoaderError) -> Bool {
    lhs.kind == rhs.kind && lhs.description == rhs.description
  }

  static func requestFailed(_ failure: RequestFailure) -> ImageLoaderError {
    var error = ImageLoaderError(.requestFailed, failure.description)
    error.requestFailure = failure
    return error
  }

  static func invalidURL(_ url: URL, _ reason: String) -> ImageLoaderError {
    ImageLoaderError(.invalidURL, "Cannot load an image from \(ImageLoader.describe(url)): \(reason).")
  }
}

extension ErrorKind where Owner == ImageLoaderError {
  /// The URL has no `http` or `https` scheme, or no host; nothing was sent.
  public static var invalidURL: Self { Self("invalidURL") }
  /// The server answered with something that is not an image (an HTML page, a JSON error with status 200): it
  /// is neither returned nor cached.
  public static var notAnImage: Self { Self("notAnImage") }
  /// A cache limit or a max-age is negative, or the disk level's size limit is not positive.
  public static var invalidConfiguration: Self { Self("invalidConfiguration") }
  /// The request failed and no stale copy could stand in: the server could not be reached or answered with an
  /// error; ``ImageLoaderError/requestFailure`` says which.
  public static var requestFailed: Self { Self("requestFailed") }
}
