import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The on-disk form of one disk cache entry: a 32-byte header, then the payload.
///
/// ```
/// offset  size  field
///      0     4  magic "KDC1" (the format's version is in it)
///      4     4  reserved, zero
///      8     8  payload length in bytes, little-endian
///     16     8  expiry, milliseconds since 1970 (Int64.max: never), little-endian
///     24     8  XXH64 of the payload, seeded with the XXH64 of bytes 0..<24, little-endian
/// ```
///
/// A file whose size is not exactly header + length, whose magic is wrong or whose checksum does not match is
/// ``ReadResult/corrupted(_:)``: truncated by a crash or a full disk, or damaged on the medium. The header also makes
/// the file self-describing, so an entry the index lost (a crash before the index was written) can be adopted again.
enum DiskCacheEntryFile {
  static let headerSize = 32
  private static let magic: (UInt8, UInt8, UInt8, UInt8) = (0x4B, 0x44, 0x43, 0x31)  // "KDC1"
  private static let never = Int64.max

  /// What reading an entry file found.
  enum ReadResult {
    /// No file.
    case missing
    /// A file that is not a complete, intact entry; the reason is for diagnostics.
    case corrupted(String)
    /// A complete entry.
    case entry(Data, expires: Date?)
  }

  /// What the header of an intact-looking file says.
  struct Header {
    let fileSize: Int
    let expires: Date?
  }

  /// What reading only a header found.
  enum HeaderResult {
    case missing
    case corrupted
    case header(Header)
  }

  // MARK: - Writing

  /// Writes `payload` with its header to a new file at `path`, which must not exist.
  ///
  /// - Throws: ``PersistenceError`` from the system call that failed (`ENOSPC` is `PersistenceError.Kind.diskFull`);
  ///   the partial file is removed.
  static func create(_ payload: Data, expires: Date?, at path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw PersistenceError.posix(errno, while: "create a cache entry", path: path) }
    var failure: Int32?
    let header = makeHeader(for: payload, expires: expires)
    if !header.withUnsafeBytes({ writeAll(descriptor, $0) }) {
      failure = errno
    } else if !payload.isEmpty, !payload.withUnsafeBytes({ writeAll(descriptor, $0) }) {
      failure = errno
    }
    if close(descriptor) != 0, failure == nil { failure = errno }
    if let failure {
      unlink(path)
      throw PersistenceError.posix(failure, while: "write a cache entry", path: path)
    }
  }

  private static func makeHeader(for payload: Data, expires: Date?) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: headerSize)
    header[0] = magic.0
    header[1] = magic.1
    header[2] = magic.2
    header[3] = magic.3
    let milliseconds = expires.map { Int64(($0.timeIntervalSince1970 * 1_000).rounded(.up)) } ?? never
    header.withUnsafeMutableBytes { bytes in
      bytes.storeBytes(of: UInt64(payload.count).littleEndian, toByteOffset: 8, as: UInt64.self)
      bytes.storeBytes(of: milliseconds.littleEndian, toByteOffset: 16, as: Int64.self)
      let checksum = checksum(payload, header: UnsafeRawBufferPointer(rebasing: bytes[0..<24]))
      bytes.storeBytes(of: checksum.littleEndian, toByteOffset: 24, as: UInt64.self)
    }
    return header
  }

  private static func checksum(_ payload: Data, header: UnsafeRawBufferPointer) -> UInt64 {
    let seed = XXHash64.hash(header)
    return payload.withUnsafeBytes { XXHash64.hash($0, seed: seed) }
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += written
    }
    return true
  }

  // MARK: - Reading

  /// Reads and checks the entry at `path`.
  ///
  /// - Throws: ``PersistenceError`` when the file exists but cannot be read (permission denied, an I/O error). A
  ///   missing file is ``ReadResult/missing``, a damaged one ``ReadResult/corrupted(_:)``: neither throws.
  static func load(at path: String) throws -> ReadResult {
    let result = try withOpenedEntry(at: path) { descriptor, header, size, headerProblem -> ReadResult in
      if let headerProblem { return .corrupted(headerProblem) }
      var payload = Data(count: size - headerSize)
      let complete = try payload.withUnsafeMutableBytes { try readAll(descriptor, into: $0, path: path) }
      guard complete else { return .corrupted("the file ended early") }
      let stored = header.withUnsafeBytes {
        UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
      }
      let actual = header.withUnsafeBytes { checksum(payload, header: UnsafeRawBufferPointer(rebasing: $0[0..<24])) }
      guard stored == actual else { return .corrupted("the checksum does not match") }
      return .entry(payload, expires: expiry(header))
    }
    return result ?? .missing
  }

  /// What the header of the entry at `path` says, without reading the payload (so without checking its checksum:
  /// a read does that).
  static func loadHeader(at path: String) throws -> HeaderResult {
    let result = try withOpenedEntry(at: path) { _, header, size, problem -> HeaderResult in
      problem == nil ? .header(Header(fileSize: size, expires: expiry(header))) : .corrupted
    }
    return result ?? .missing
  }

  /// Opens the entry at `path`, reads its header and hands `body` the open descriptor, the header, the file's size
  /// and what is wrong with the header, if anything; `nil` when there is no such file. The file is closed after.
  private static func withOpenedEntry<Result>(
    at path: String, _ body: (Int32, [UInt8], Int, String?) throws -> Result
  ) throws -> Result? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw PersistenceError.posix(errno, while: "open a cache entry", path: path)
    }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: headerSize)
    let (size, problem) = try readHeader(descriptor, into: &header, path: path)
    return try body(descriptor, header, size, problem)
  }

  /// Reads the header into `header` and checks it against the file's size: the size, and a problem if any.
  private static func readHeader(
    _ descriptor: Int32, into header: inout [UInt8], path: String
  ) throws -> (size: Int, problem: String?) {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw PersistenceError.posix(errno, while: "read the size of a cache entry", path: path)
    }
    let size = Int(status.st_size)
    guard size >= headerSize else { return (size, "the file is shorter than a header") }
    let complete = try header.withUnsafeMutableBytes { try readAll(descriptor, into: $0, path: path) }
    guard complete, header[0] == magic.0, header[1] == magic.1, header[2] == magic.2, header[3] == magic.3 else {
      return (size, "the header is not a cache entry's")
    }
    let length = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    guard length == UInt64(size - headerSize) else { return (size, "the file is \(size) bytes, not 32 + \(length)") }
    return (size, nil)
  }

  private static func expiry(_ header: [UInt8]) -> Date? {
    let milliseconds = header.withUnsafeBytes {
      Int64(littleEndian: $0.loadUnaligned(fromByteOffset: 16, as: Int64.self))
    }
    return milliseconds == never ? nil : Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
  }

  /// Fills `buffer`; `false` if the file ended first.
  private static func readAll(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws
    -> Bool
  {
    var offset = 0
    while offset < buffer.count {
      let count = read(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      if count < 0 {
        if errno == EINTR { continue }
        throw PersistenceError.posix(errno, while: "read a cache entry", path: path)
      }
      if count == 0 { return false }
      offset += count
    }
    return true
  }
}
