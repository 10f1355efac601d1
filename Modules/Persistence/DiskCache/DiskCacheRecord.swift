import Foundation

/// What the index knows about one entry: its size, when it was last read or written, when it expires, and its place
/// in the access order.
struct DiskCacheRecord: Sendable {
  /// The entry file's size in bytes, header included.
  var size: Int
  /// The wall-clock time of the last read or write.
  var accessed: Date
  /// When the entry expires; `nil`: never.
  var expires: Date?
  /// The entry's place in the access order: larger is more recent. Trimming goes by this, not by `accessed`, so that
  /// a wall clock set back cannot reorder entries; it is stored, so the order survives a restart.
  var sequence: UInt64
  /// Which write of the entry this record describes; not stored. A reader or a trim that acted on one version leaves
  /// a newer one alone.
  var version: UInt64

  /// Whether the entry has expired at `now`.
  func isExpired(at now: Date) -> Bool {
    expires.map { $0 <= now } ?? false
  }
}
