/// Writes valid PNG files in pure Swift: an 8-bit palette image, its pixels in a zlib stream of stored (uncompressed)
/// deflate blocks, every chunk with its CRC-32. Enough for image decoders and caches downstream to be tested for real.
enum PNGEncoder {
  /// A PNG of `width` × `height` pixels, each an index into `palette` (at most 256 RGB colours).
  static func encode(width: Int, height: Int, palette: [(UInt8, UInt8, UInt8)], pixel: (Int, Int) -> UInt8) -> [UInt8] {
    precondition((1...256).contains(palette.count) && width > 0 && height > 0)
    var scanlines: [UInt8] = []
    scanlines.reserveCapacity(height * (width + 1))
    for y in 0..<height {
      scanlines.append(0)  // filter type None
      for x in 0..<width { scanlines.append(pixel(x, y)) }
    }
    var header: [UInt8] = []
    header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
    header += [8, 3, 0, 0, 0]  // bit depth 8, colour type 3 (palette), deflate, adaptive filtering, no interlace
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png += chunk("IHDR", header)
    png += chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] })
    png += chunk("IDAT", zlibStored(scanlines))
    png += chunk("IEND", [])
    return png
  }

  /// Length, type, data, and the CRC-32 of type and data.
  private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeAndData = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData))
  }

  /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951, BTYPE 00), at most 65,535 bytes each.
  private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var stream: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let length = min(65_535, data.count - offset)
      let isFinal = offset + length == data.count
      stream.append(isFinal ? 1 : 0)
      stream += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      stream += data[offset..<offset + length]
      offset += length
    } while offset < data.count
    return stream + bigEndian(adler32(data))
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }

  private static let crcTable: [UInt32] = (0..<256).map { value in
    var crc = UInt32(value)
    for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    return crc
  }

  static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for chunk in stride(from: 0, to: bytes.count, by: 5_552) {
      for byte in bytes[chunk..<min(chunk + 5_552, bytes.count)] {
        a += UInt32(byte)
        b += a
      }
      a %= 65_521
      b %= 65_521
    }
    return b << 16 | a
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }
}
