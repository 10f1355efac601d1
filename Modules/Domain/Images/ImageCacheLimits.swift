/// How much the image cache may hold, and how long an image stays fresh when its server does not say (REQUIREMENTS
/// A8).
///
/// ```swift
/// import Foundation
/// import Networking
///
/// var limits = ImageCacheLimits()
/// limits.diskSizeLimit = 500 << 20
/// let caches = URL(fileURLWithPath: "myapp-caches", isDirectory: true)
/// let loader = try ImageLoader(client: HTTPClient(), directory: caches.appending(path: "images"), limits: limits)
/// ```
public struct ImageCacheLimits: Sendable, Hashable {
  /// The most bytes of images the memory level keeps; 0 for no limit. An image larger than a quarter of it is kept
  /// on disk only. Default 50 MiB.
  public var memoryCostLimit: Int
  /// The most images the memory level keeps; 0 for no limit. Default 1,000.
  public var memoryCountLimit: Int
  /// The most bytes the disk level's entry files may take before the least recently used are removed. Default
  /// 200 MiB.
  public var diskSizeLimit: Int
  /// How long an image stays fresh when its response has no `Cache-Control: max-age`. Default one hour.
  public var defaultMaxAge: Duration

  /// Limits; each default is the property's.
  ///
  /// - Parameters:
  ///   - memoryCostLimit: The most bytes of images in memory; 0 for no limit.
  ///   - memoryCountLimit: The most images in memory; 0 for no limit.
  ///   - diskSizeLimit: The most bytes on disk; positive.
  ///   - defaultMaxAge: The freshness of a response that does not state its own; not negative.
  public init(
    memoryCostLimit: Int = 50 << 20, memoryCountLimit: Int = 1_000, diskSizeLimit: Int = 200 << 20,
    defaultMaxAge: Duration = .seconds(3_600)
  ) {
    self.memoryCostLimit = memoryCostLimit
    self.memoryCountLimit = memoryCountLimit
    self.diskSizeLimit = diskSizeLimit
    self.defaultMaxAge = defaultMaxAge
  }

  /// Throws unless every limit is in range.
  func validate() throws {
    guard memoryCostLimit >= 0, memoryCountLimit >= 0 else {
      throw ImageLoaderError(.invalidConfiguration, "The image cache's memory limits must not be negative.")
    }
    guard diskSizeLimit > 0 else {
      throw ImageLoaderError(.invalidConfiguration, "The image cache's disk size limit must be positive.")
    }
    guard defaultMaxAge >= .zero else {
      throw ImageLoaderError(.invalidConfiguration, "The image cache's default max-age must not be negative.")
    }
  }
}
