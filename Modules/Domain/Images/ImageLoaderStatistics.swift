/// What an ``ImageLoader`` has done since it was created: where each image came from, and what reached the network.
///
/// A caller answered from memory counts once in ``memoryHits``; every other caller either starts a shared load,
/// whose outcome counts once (in ``diskHits``, ``networkLoads``, ``revalidationsNotModified``,
/// ``revalidationsModified``, ``staleServed``, ``failures`` or ``cancelledLoads``), or joins one, counted in
/// ``coalescedJoins``.
public struct ImageLoaderStatistics: Sendable, Hashable {
  /// Callers answered from memory with a fresh image.
  public var memoryHits = 0
  /// Loads answered from disk with a fresh image (then kept in memory too).
  public var diskHits = 0
  /// Loads that downloaded an image in full: nothing was cached, or the stale copy had no ETag.
  public var networkLoads = 0
  /// Revalidations (`If-None-Match`) answered `304 Not Modified`: the cached image was returned and made fresh again.
  public var revalidationsNotModified = 0
  /// Revalidations answered with a new image, which replaced the cached one.
  public var revalidationsModified = 0
  /// Callers that found a load of the same URL under way and waited for it instead of starting another.
  public var coalescedJoins = 0
  /// Loads that could not reach the server (or met a 5xx) while a stale copy was cached, and returned that copy.
  public var staleServed = 0
  /// Loads that ended in an error, which every caller waiting on them received; nothing was cached.
  public var failures = 0
  /// Loads cancelled because every caller waiting on them was cancelled.
  public var cancelledLoads = 0

  /// Revalidations that got an answer: ``revalidationsNotModified`` plus ``revalidationsModified``.
  public var revalidations: Int { revalidationsNotModified + revalidationsModified }

  /// All zero.
  public init() {}
}
