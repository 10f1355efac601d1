import Foundation

/// The approach event SDKs in the wild started with, as the durable queue's peer: the whole pending array in memory,
/// JSON-encoded and written atomically to one file (a temporary file, then a rename, as `UserDefaults` or
/// `Data.write(to:options: .atomic)` do) on every change. No `fsync`: it is less durable than Keel, which only
/// flatters it.
struct DurableQueueNaiveFile {
  let url: URL
  private(set) var pending: [DurableQueueBenchEvent]

  /// A file holding `pending`.
  init(url: URL, pending: [DurableQueueBenchEvent]) throws {
    self.url = url
    self.pending = pending
    try save()
  }

  /// Appends `events` and rewrites the file.
  mutating func append(_ events: [DurableQueueBenchEvent]) throws {
    pending += events
    try save()
  }

  private func save() throws {
    try JSONEncoder().encode(pending).write(to: url, options: .atomic)
  }
}
