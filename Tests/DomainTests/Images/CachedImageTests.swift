import Domain
import Foundation
import Persistence
import Testing

/// The disk level's record of an image, and the Cache-Control rules that set its freshness: pure logic that needs no
/// server.
@Suite("CachedImage")
struct CachedImageTests {
  @Test(
    "The binary form reads back to the same image",
    arguments: [
      CachedImage(data: Data("png".utf8), etag: "\"abc\"", expires: Date(timeIntervalSince1970: 1_700_000_000.123_456)),
      CachedImage(data: Data(), etag: nil, expires: .distantPast),
      CachedImage(data: Data((0..<4_096).map { UInt8($0 % 251) }), etag: "W/\"ünïcode\"", expires: .distantFuture),
    ])
  func roundTrip(_ image: CachedImage) throws {
    let encoded = image.encoded()
    #expect(try CachedImage(encoded: encoded) == image)
    #expect(encoded.count == 15 + (image.etag?.utf8.count ?? 0) + image.data.count, "15 bytes of header, no more")
  }

  @Test("The binary form reads back from a slice, as the disk level may hand it over")
  func roundTripFromSlice() throws {
    let image = CachedImage(data: Data("png".utf8), etag: "\"e\"", expires: Date(timeIntervalSince1970: 42))
    let padded = Data([9, 9, 9]) + image.encoded()
    #expect(try CachedImage(encoded: padded.dropFirst(3)) == image)
  }

  @Test(
    "A record of another format, version or cut short is a decoding error",
    arguments: [
      Data(), Data("KIMG".utf8), Data("JSON{}-not-an-image-record".utf8),
      Data([75, 73, 77, 71, 2] + [UInt8](repeating: 0, count: 10)),
    ])
  func rejectsGarbage(_ bytes: Data) {
    let error = #expect(throws: PersistenceError.self) { try CachedImage(encoded: bytes) }
    #expect(error?.kind == .decoding)
  }

  @Test("A record whose ETag length runs past its end is a decoding error")
  func rejectsTruncatedETag() {
    let encoded = CachedImage(data: Data(), etag: "\"0123456789\"", expires: .distantPast).encoded()
    #expect(throws: PersistenceError.self) { try CachedImage(encoded: encoded.dropLast(3)) }
  }

  @Test("Freshness: fresh strictly before the expiry")
  func freshness() {
    let expires = Date(timeIntervalSince1970: 100)
    let image = CachedImage(data: Data(), etag: nil, expires: expires)
    #expect(image.isFresh(at: expires.addingTimeInterval(-0.001)))
    #expect(!image.isFresh(at: expires))
  }
}
