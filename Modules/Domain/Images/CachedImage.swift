import Foundation
import Persistence

/// An image as the cache keeps it: its bytes, the validator to revalidate it with, and until when it is fresh.
///
/// On disk it is one compact binary record (``encoded()``): a 4-byte magic `KIMG`, a version byte, the expiry as the
/// bit pattern of its seconds since 1970 (8 bytes), the ETag's length (2 bytes) and UTF-8 bytes, then the image's
/// bytes as they came, so that an entry costs 15 bytes plus its ETag over the image itself.
public struct CachedImage: Sendable, Hashable {
  /// The image's bytes, as the server sent them.
  public var data: Data
  /// The server's `ETag` for these bytes, sent back in `If-None-Match` when the image is stale; `nil` if it gave none.
  public var etag: String?
  /// Until when the image is fresh: before it, the cache answers without asking the server.
  public var expires: Date

  /// A cached image.
  ///
  /// - Parameters:
  ///   - data: The image's bytes.
  ///   - etag: The server's validator for them, if any.
  ///   - expires: Until when they are fresh.
  public init(data: Data, etag: String?, expires: Date) {
    self.data = data
    self.etag = etag
    self.expires = expires
  }

  /// Whether the image is still fresh at `date`.
  public func isFresh(at date: Date) -> Bool { date < expires }

  /// What the image counts against the memory level's cost limit: its bytes and its ETag's.
  public var cost: Int { data.count + (etag?.utf8.count ?? 0) }

  private static let magic: [UInt8] = Array("KIMG".utf8)
  private static let version: UInt8 = 1
  private static let headerSize = 4 + 1 + 8 + 2

  /// The compact binary form stored on disk; read back with ``init(encoded:)``.
  public func encoded() -> Data {
    // An ETag longer than a length field can say is dropped: the image is then refetched, not revalidated.
    let tag = etag.map { Array($0.utf8) }.flatMap { $0.count <= Int(UInt16.max) ? $0 : nil } ?? []
    var bytes = [UInt8]()
    bytes.reserveCapacity(Self.headerSize + tag.count + data.count)
    bytes += Self.magic
    bytes.append(Self.version)
    let seconds = expires.timeIntervalSince1970.bitPattern
    for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds >> shift)) }
    bytes.append(UInt8(truncatingIfNeeded: tag.count >> 8))
    bytes.append(UInt8(truncatingIfNeeded: tag.count))
    bytes += tag
    var encoded = Data(bytes)
    encoded.append(data)
    return encoded
  }

  /// Reads the binary form written by ``encoded()``.
  ///
  /// - Throws: `PersistenceError` of kind `decoding` when `encoded` is not such a record (another format, another
  ///   version, or cut short); the cache then treats the entry as a miss and removes it.
  public init(encoded: Data) throws {
    let bytes = [UInt8](encoded.prefix(Self.headerSize))
    guard bytes.count == Self.headerSize, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version else {
      throw PersistenceError(.decoding, "A cached image record has an unknown format or version.")
    }
    let seconds = bytes[5..<13].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let tagLength = Int(bytes[13]) << 8 | Int(bytes[14])
    let tagStart = encoded.startIndex + Self.headerSize
    guard encoded.count >= Self.headerSize + tagLength else {
      throw PersistenceError(.decoding, "A cached image record is cut short.")
    }
    let tag = encoded[tagStart..<tagStart + tagLength]
    expires = Date(timeIntervalSince1970: Double(bitPattern: seconds))
    etag = tagLength == 0 ? nil : String(decoding: tag, as: UTF8.self)
    data = Data(encoded[(tagStart + tagLength)...])
  }
}
