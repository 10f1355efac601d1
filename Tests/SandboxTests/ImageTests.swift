import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §4: valid, deterministic PNGs with caching headers.
@Suite("Sandbox images", .timeLimit(.minutes(3)))
struct ImageTests {
  @Test(
    "A PNG of size × size: signature, IHDR, every CRC and the zlib stream check out", arguments: [1, 37, 256, 2_048])
  func validPNG(size: Int) async throws {
    try await withSandbox { client in
      let response = try await client.send("GET", "/images/avatar-1.png?size=\(size)")
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "image/png")
      let png = try PNGFile(Array(response.body))
      #expect(png.width == size && png.height == size)
      #expect(png.pixelBytes == size * (size + 1), "one filter byte and one palette index per pixel, per row")
    }
  }

  @Test("Deterministic per (id, size); ETag, Cache-Control, and 304 for If-None-Match")
  func caching() async throws {
    try await withSandbox { client in
      let first = try await client.send("GET", "/images/a.png?size=64")
      let again = try await client.send("GET", "/images/a.png?size=64")
      let other = try await client.send("GET", "/images/b.png?size=64")
      #expect(first.body == again.body)
      #expect(first.body != other.body)
      #expect(try await client.send("GET", "/images/a.png").body.count > first.body.count, "size defaults to 256")

      let etag = try #require(first.header("ETag"))
      #expect(first.header("Cache-Control") == "max-age=3600")
      #expect(other.header("ETag") != etag)
      let notModified = try await client.send("GET", "/images/a.png?size=64", headers: ["If-None-Match": etag])
      #expect(notModified.status == 304)
      #expect(notModified.body.isEmpty)
    }
  }

  @Test("?cache=no-store and ?cache=no-cache answer that Cache-Control; any other value is 400")
  func cacheQuery() async throws {
    try await withSandbox { client in
      for value in ["no-store", "no-cache"] {
        let response = try await client.send("GET", "/images/a.png?size=8&cache=\(value)")
        #expect(response.status == 200 && response.header("Cache-Control") == value)
      }
      #expect(try await client.send("GET", "/images/a.png?size=8&cache=forever").status == 400)
    }
  }

  @Test("A redraw gives every image new bytes and a new ETag, so the old tag gets a 200; a reset brings the first back")
  func redraw() async throws {
    try await withSandbox { client in
      let first = try await client.send("GET", "/images/a.png?size=16")
      let etag = try #require(first.header("ETag"))
      try await client.sandbox.control.redrawImages()

      let redrawn = try await client.send("GET", "/images/a.png?size=16", headers: ["If-None-Match": etag])
      #expect(redrawn.status == 200)
      #expect(redrawn.header("ETag") != etag)
      #expect(redrawn.body != first.body)
      #expect(try PNGFile(Array(redrawn.body)).width == 16)
      let redrawnTag = try #require(redrawn.header("ETag"))
      let same = try await client.send("GET", "/images/a.png?size=16", headers: ["If-None-Match": redrawnTag])
      #expect(same.status == 304, "the new drawing is stable until the next redraw")

      try await client.sandbox.control.reset()
      let reset = try await client.send("GET", "/images/a.png?size=16")
      #expect(reset.body == first.body && reset.header("ETag") == etag)
    }
  }

  @Test("An unknown id format is 404 JSON; a size outside 1–2048 is 400")
  func badRequests() async throws {
    try await withSandbox { client in
      for path in ["/images/a.gif", "/images/bad%20id.png", "/images/.png"] {
        let response = try await client.send("GET", path)
        #expect(response.status == 404, "\(path)")
        #expect(response.json["errorCode"] as? String == "E404", "\(path)")
      }
      for size in ["0", "2049", "big"] {
        #expect(try await client.send("GET", "/images/a.png?size=\(size)").status == 400, "size=\(size)")
      }
    }
  }
}

/// A PNG, parsed and checked the way a decoder would: signature, chunk CRCs, IHDR, and the zlib stream of IDAT
/// (stored blocks only, which is what the Sandbox writes) with its Adler-32.
struct PNGFile {
  struct Invalid: Error, CustomStringConvertible { let description: String }

  let width: Int
  let height: Int
  let pixelBytes: Int

  init(_ bytes: [UInt8]) throws {
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      throw Invalid(description: "signature")
    }
    var offset = 8
    var header: [UInt8] = []
    var idat: [UInt8] = []
    var types: [String] = []
    while offset + 12 <= bytes.count {
      let length = Int(Self.uint32(bytes, offset))
      let typeAndData = Array(bytes[offset + 4..<offset + 8 + length])
      guard Self.uint32(bytes, offset + 8 + length) == Self.crc32(typeAndData) else {
        throw Invalid(description: "CRC of chunk at \(offset)")
      }
      let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
      types.append(type)
      if type == "IHDR" { header = Array(typeAndData.dropFirst(4)) }
      if type == "IDAT" { idat += typeAndData.dropFirst(4) }
      offset += 12 + length
    }
    guard types.first == "IHDR", types.last == "IEND", offset == bytes.count, header.count == 13 else {
      throw Invalid(description: "chunks \(types)")
    }
    width = Int(Self.uint32(header, 0))
    height = Int(Self.uint32(header, 4))
    // zlib: CMF/FLG, stored blocks (BFINAL, LEN, NLEN, data), Adler-32.
    guard idat.count >= 6, (Int(idat[0]) << 8 | Int(idat[1])) % 31 == 0 else {
      throw Invalid(description: "zlib header")
    }
    var cursor = 2
    var data: [UInt8] = []
    var final = false
    while !final {
      final = idat[cursor] & 1 == 1
      guard idat[cursor] >> 1 == 0 else { throw Invalid(description: "not a stored block") }
      let length = Int(idat[cursor + 1]) | Int(idat[cursor + 2]) << 8
      let complement = Int(idat[cursor + 3]) | Int(idat[cursor + 4]) << 8
      guard length == ~complement & 0xFFFF else { throw Invalid(description: "NLEN") }
      data += idat[cursor + 5..<cursor + 5 + length]
      cursor += 5 + length
    }
    guard Self.uint32(idat, cursor) == Self.adler32(data), cursor + 4 == idat.count else {
      throw Invalid(description: "Adler-32")
    }
    pixelBytes = data.count
  }

  private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  private static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
  }

  private static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in bytes {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    return b << 16 | a
  }
}
