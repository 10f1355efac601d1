/// A value stored in both caches: a class, because `NSCache` holds objects, so that both sides retain and release
/// the same kind of thing.
final class MemoryCachePayload: Sendable {
  let key: Int

  init(key: Int) { self.key = key }
}
