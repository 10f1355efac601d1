import Foundation
import GRDB

/// A `queue` row as stored, before its payload is decoded.
struct StoredItem: FetchableRecord, Sendable {
  let id: Int64
  let payload: Data
  let enqueuedAt: Double
  let attempts: Int
  let notBefore: Double

  init(row: Row) throws {
    id = row["id"]
    payload = row["payload"]
    enqueuedAt = row["enqueuedAt"]
    attempts = row["attempts"]
    notBefore = row["notBefore"]
  }

  func item<Element>(_ element: Element) -> QueuedItem<Element> {
    QueuedItem(
      id: id, element: element, attempts: attempts, enqueuedAt: Date(timeIntervalSince1970: enqueuedAt),
      notBefore: notBefore > 0 ? Date(timeIntervalSince1970: notBefore) : nil)
  }
}
