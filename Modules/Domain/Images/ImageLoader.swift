import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence
import Synchronization

/// Loads images by URL through a memory level, a disk level that survives restarts, and the network (REQUIREMENTS
/// A8).
///
/// ```swift
/// import Foundation
/// import Networking
///
/// let caches = URL(fileURLWithPath: "myapp-caches", isDirectory: true)
/// let loader = try ImageLoader(client: HTTPClient(), directory: caches.appending(path: "images"))
/// let png = try await loader.data(for: URL(string: "https://cdn.example.com/avatars/alice.png")!)
/// ```
///
/// - **Levels:** a fresh image in memory is returned at once. Otherwise the disk level is read (a hit is kept in
///   memory too), and then the network is asked, and the answer is kept on both levels.
/// - **Freshness:** an image is fresh for the response's `Cache-Control: max-age`, or ``defaultMaxAge`` when it
///   has none; `no-cache` makes it stale at once and `no-store` keeps it out of the cache. Stale images stay cached
///   (only the size limits evict): the next load revalidates one with `If-None-Match`, and a `304 Not Modified`
///   makes the cached bytes fresh again without downloading them.
/// - **Stale if error:** when a revalidation cannot reach the server, or the server answers 5xx, the stale bytes are
///   returned rather than an error, as image loaders on Apple platforms do; the next load tries again.
/// - **Coalescing:** loads of the same URL share one disk read and one request. A cancelled caller returns at once
///   with `CancellationError`; the request is cancelled only when every caller waiting on it is.
/// - **Errors** (a non-2xx status, a failed transfer) reach every caller of that load and are never cached.
///
/// No mutable state outside its locks: one loader can be shared by every task.
public final class ImageLoader: Sendable {
  /// What sends the requests: its interceptors (retries, rate limits) apply to every image request.
  public let client: HTTPClient
  /// The two levels. ``makeCache(directory:limits:now:)`` builds them; ``clearMemory()`` empties memory only.
  public let cache: HybridCache<CachedImage>
  /// How long an image stays fresh when its response has no `Cache-Control: max-age`.
  public let defaultMaxAge: Duration

  let now: @Sendable () -> Date
  let logger: Logger
  let loads = InFlightLoads<Data>()
  private let counters = Locked(ImageLoaderStatistics())
  /// The memory hits, counted apart from ``counters``: an atomic add where a lock was a fifth of a hit's time.
  private let memoryHits = Atomic<Int>(0)
  /// ``cache``'s memory level, held directly: a hit reached it through the hybrid cache, which cost a retain and a
  /// release of it per hit.
  private let memory: MemoryCache<String, CachedImage>

  /// A loader over `cache` that asks `client` for what the cache does not have fresh.
  ///
  /// - Parameters:
  ///   - client: Sends the image requests; its transport is the composition root's choice.
  ///   - cache: The memory and disk levels, from ``makeCache(directory:limits:now:)`` or built to match: its disk
  ///     level must have no default time to live, so that stale entries stay to be revalidated.
  ///   - defaultMaxAge: How long an image stays fresh when its response has no `max-age`; not negative.
  ///   - now: The wall-clock time that freshness is measured against; by default the kernel's last tick (at most 1 to 10
  ///     ms old, a fifth of `Date()`'s cost on Linux); inject a fixed one in tests.
  ///   - logger: Where the loader logs cache failures and stale answers; a logger that discards everything by
  ///     default.
  public init(
    client: HTTPClient, cache: HybridCache<CachedImage>, defaultMaxAge: Duration = .seconds(3_600),
    now: @escaping @Sendable () -> Date = CoarseWallClock.now,
    logger: Logger = Logger(label: "keel.images", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    precondition(defaultMaxAge >= .zero, "defaultMaxAge must not be negative, got \(defaultMaxAge)")
    self.client = client
    self.cache = cache
    memory = cache.memory
    self.defaultMaxAge = defaultMaxAge
    self.now = now
    self.logger = logger
  }

  /// A loader with a cache of its own in `directory`, within `limits`.
  ///
  /// - Parameters:
  ///   - client: Sends the image requests.
  ///   - directory: The disk level's directory; one loader per directory at a time.
  ///   - limits: The levels' limits and the default freshness.
  ///   - now: The wall-clock time that freshness is measured against.
  ///   - logger: Where the loader logs.
  /// - Throws: ``ImageLoaderError`` of kind `ImageLoaderError.Kind.invalidConfiguration` for limits out of
  ///   range, or the disk level's `PersistenceError` when its directory cannot be created or opened.
  public convenience init(
    client: HTTPClient, directory: URL, limits: ImageCacheLimits = ImageCacheLimits(),
    now: @escaping @Sendable () -> Date = CoarseWallClock.now,
    logger: Logger = Logger(label: "keel.images", factory: { _ in SwiftLogNoOpLogHandler() })
  ) throws {
    self.init(
      client: client, cache: try Self.makeCache(directory: directory, limits: limits, now: now),
      defaultMaxAge: limits.defaultMaxAge, now: now, logger: logger)
  }

  /// The image at `url`: from memory if fresh there, else from disk if fresh there, else from the server (a stale
  /// cached copy is revalidated).
  ///
  /// A memory hit is answered on the caller's executor, with no hop (the main actor's, for a view); anything else
  /// leaves it before reading the disk or the network.
  ///
  /// - Parameter url: An absolute `http` or `https` URL; the cache key is its absolute string.
  /// - Returns: The image's bytes, as the server sent them.
  /// - Throws: ``ImageLoaderError`` of kind `ImageLoaderError.Kind.invalidURL` before anything is sent;
  ///   `ImageLoaderError.Kind.notAnImage` for an answer that is no image; `ImageLoaderError.Kind.requestFailed`
  ///   when the server cannot be reached or answers with an error status (and no stale copy can stand in);
  ///   `CancellationError` when the calling task is cancelled.
  nonisolated(nonsending) public func data(for url: URL) async throws -> Data {
    let key = Self.cacheKey(for: url)
    // Only valid URLs are ever stored, so a hit needs no validation: the fast path stays one lookup.
    if let cached = memory.object(forKey: key), cached.isFresh(at: now()) {
      // Wrapping: one locked add, where the trapping `add` is a compare-and-swap loop (64 bits of hits never wrap).
      memoryHits.wrappingAdd(1, ordering: .relaxed)
      return cached.data
    }
    try ImagesRouter.validated(url)
    return try await loads.value(
      forKey: key, onJoin: { count(\.coalescedJoins) }, operation: { [self] in try await load(url, key: key) })
  }

  /// The cache key of `url`: its absolute string. A URL without a base is already absolute, and its relative string is
  /// the same text for a fourth of the price (`absoluteString` rebuilds it), measured on a memory hit's path.
  @inline(__always)
  static func cacheKey(for url: URL) -> String {
    url.baseURL == nil ? url.relativeString : url.absoluteString
  }

  /// What the loader has done since it was created.
  public var statistics: ImageLoaderStatistics {
    var statistics = counters.withLock { $0 }
    statistics.memoryHits += memoryHits.load(ordering: .relaxed)
    return statistics
  }

  /// Empties the memory level, as an app does under memory pressure; the disk level keeps every image.
  public func clearMemory() { cache.clearMemory() }

  func count(_ counter: WritableKeyPath<ImageLoaderStatistics, Int>) {
    counters.withLock { $0[keyPath: counter] += 1 }
  }

  /// The shared load: the cache again (another load may have just finished, or the disk has it), then the network.
  private func load(_ url: URL, key: String) async throws -> Data {
    do {
      let hit: HybridCache<CachedImage>.Hit?
      do {
        hit = try cache.lookup(key)
      } catch {
        logger.warning("Cannot read the cached image for \(Self.describe(url)); loading it again: \(error)")
        hit = nil
      }
      if let hit, hit.value.isFresh(at: now()) {
        count(hit.source == .memory ? \.memoryHits : \.diskHits)
        return hit.value.data
      }
      return try await RequestFailure.wrapping(ImageLoaderError.requestFailed) {
        try await download(url, key: key, stale: hit?.value)
      }
    } catch {
      count(Task.isCancelled || error is CancellationError ? \.cancelledLoads : \.failures)
      throw error
    }
  }

  /// `url` without its query, which may hold a signature: for logs.
  static func describe(_ url: URL) -> String {
    var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
    components?.query = nil
    components?.fragment = nil
    if components?.percentEncodedPassword != nil { components?.percentEncodedPassword = LogRedaction.mask }
    return components?.string ?? "an image URL"
  }
}
