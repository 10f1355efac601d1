import Domain
import Foundation
import KeelConcurrency
import KeelErrors
import KeelFiles
import Logging
import Networking

extension ChatService {
  /// Downloads a message's file (``Message/File/url``) or image to `destination`, streamed to disk through the
  /// session's access token, reporting `progress` as bytes arrive; `destination` appears whole or not at all
  /// (owner-only, replacing a file there).
  ///
  /// Each account keeps the files it downloaded (at most ``ChatConfiguration/fileCacheSize`` bytes, the least
  /// recently downloaded going first), as images are kept: the next download of the same file asks the server only
  /// whether it changed (`If-None-Match`), gets a 304 without the bytes, and copies the kept file; with the server
  /// unreachable, the kept file is used as it is. A file the server no longer has (its message deleted) is forgotten.
  ///
  /// A file fetched from the server is copied into the account's files once `destination` is whole and this has
  /// returned, as an image is written to the image loader's disk after it is shown: the caller does not wait for
  /// the copy. The next download and ``shutDown()`` wait for it; a `destination` written to before it is copied is
  /// not kept (moving or removing it is fine).
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a path or URL not on the backend, before anything is sent;
  ///   `ChatError.Kind.notFound` for a file the server does not have or does not show the user (not a member of its
  ///   conversation); `ChatError.Kind.requestFailed` when it cannot be fetched; `ChatError.Kind.storage` when
  ///   `destination` cannot be written; `ChatError.Kind.notSignedIn`.
  public func download(
    _ path: String, to destination: URL, progress: (@Sendable (TransferProgress) -> Void)? = nil
  ) async throws {
    let url = try backendURL(path, of: "a file")
    let account = try accounts.current()
    do {
      try OwnerOnlyFiles.makeDirectory(account.fileCache)
    } catch {
      throw ChatError.storage(error, doing: "open the file cache of the chat")
    }
    await fileCacheWrites()
    await forgetReleasedFiles(of: account)
    let (kept, tag) = Self.cacheEntry(of: url, in: account.fileCache)
    let keptTag = Self.keptTag(of: kept, in: tag)
    var request = APIRequest<URL>.download(FileEndpoint(url: url, ifNoneMatch: keptTag), to: destination)
    request.acceptableStatus = 200...304
    request.progress = progress
    do {
      let response = try await sessions.client.response(for: request)
      if response.status != 304, !(200..<300).contains(response.status) {
        // A redirect the client was set not to follow: nothing was written.
        throw ChatError(
          .requestFailed, "Cannot download \(path): the server answered \(response.status), not the file.")
      }
      if response.status != 304 {
        // The server's bytes are at `destination`: kept behind the caller's back, or forgotten when they cannot be
        // asked about again (no ETag).
        let etag = response.headers.first(where: { $0.key.lowercased() == "etag" })?.value
        keep(destination, as: (kept, tag), etag: etag, in: account.fileCache)
        return
      }
      if let size = try? ChatOutbox.size(of: kept) {
        progress?(TransferProgress(completedBytes: size, expectedBytes: size))
      }
    } catch let failure as NetworkError {
      if failure.statusCode == 404 || failure.statusCode == 403 {
        for file in [kept, tag] { try? FileManager.default.removeItem(at: file) }
        throw ChatError(.notFound, "Cannot download \(path): the server has no such file for you (\(failure)).")
      }
      // The transfer's file, not the network: `destination` cannot be written.
      if let code = failure.urlError?.code, Self.fileFailures.contains(code) {
        throw ChatError.storage(failure, doing: "write \(destination.path)")
      }
      // Offline, or a failing server: the kept copy is the file as it was.
      guard failure.kind == .transport || (failure.statusCode ?? 0) >= 500, keptTag != nil else {
        throw ChatError.request(RequestFailure(failure), doing: "download \(path)")
      }
      logger.info("Cannot reach the server for \(path); using the kept copy: \(failure)")
    }
    do {
      try OwnerOnlyFiles.copy(kept, to: destination)
    } catch {
      throw ChatError.storage(error, doing: "write \(destination.path)")
    }
    // Used now, whether fetched or kept (a 304, the server unreachable): the last to go when the cache is trimmed.
    try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: kept.path)
    trimFileCache(account.fileCache)
  }

  /// What a transport reports when the file of a download, not the network, failed.
  private static let fileFailures: Set<URLError.Code> = [
    .cannotCreateFile, .cannotOpenFile, .cannotWriteToFile, .cannotMoveFile, .cannotRemoveFile, .fileDoesNotExist,
    .fileIsDirectory, .noPermissionsToReadFile,
  ]

  /// Waits for the copies of downloaded files still being made into an account's files.
  func fileCacheWrites() async {
    await fileCacheWrite.withLock { $0 }?.value
  }

  /// Copies the file just downloaded to `destination` into `cache` as `entry.kept`, with its size and `etag` in
  /// `entry.tag`, in a task of its own after the copies before it, then trims the cache; without an ETag, forgets the
  /// entry instead. The file is opened here, before the caller has it: a copy of what the server sent, unless the
  /// caller writes to it first (then nothing is kept).
  private func keep(_ destination: URL, as entry: (kept: URL, tag: URL), etag: String?, in cache: URL) {
    for file in [entry.kept, entry.tag] { try? FileManager.default.removeItem(at: file) }
    guard let etag, let opened = try? OpenedFile(destination) else { return }
    fileCacheWrite.withLock { last in
      let previous = last
      last = Task { [self, logger] in
        await previous?.value
        do {
          try opened.copy(to: entry.kept)
          try OwnerOnlyFiles.write(Data("\(opened.size) \(etag)".utf8), to: entry.tag, synchronously: false)
        } catch {
          for file in [entry.kept, entry.tag] { try? FileManager.default.removeItem(at: file) }
          logger.info("A downloaded file is not kept for the next download: \(error)")
        }
        trimFileCache(cache)
      }
    }
  }

  /// Forgets the kept copies of the files whose messages were deleted since the last download (the store lists them
  /// as it applies each deletion), so that a deleted file leaves nothing here.
  func forgetReleasedFiles(of account: ChatAccount) async {
    guard let released = try? await account.store.takeReleasedFiles(), !released.isEmpty else { return }
    for path in released {
      guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else { continue }
      let (kept, tag) = Self.cacheEntry(of: url, in: account.fileCache)
      for file in [kept, tag] { try? FileManager.default.removeItem(at: file) }
    }
  }

  /// The ETag of the copy `kept`, from `tag` (`SIZE ETAG`, written after the copy); `nil`, and the entry forgotten,
  /// when the copy does not have the size written there: a power loss can leave a download short, never flushed.
  private static func keptTag(of kept: URL, in tag: URL) -> String? {
    guard FileManager.default.fileExists(atPath: kept.path) else { return nil }
    let entry = (try? String(contentsOf: tag, encoding: .utf8)) ?? ""
    let fields = entry.split(separator: " ", maxSplits: 1)
    guard fields.count == 2, let size = Int64(fields[0]), (try? ChatOutbox.size(of: kept)) == size else {
      for file in [kept, tag] { try? FileManager.default.removeItem(at: file) }
      return nil
    }
    return String(fields[1])
  }

  /// The kept copy of the file at `url` in `cache`, named by the SHA-256 of the URL, and its size and ETag beside it.
  private static func cacheEntry(of url: URL, in cache: URL) -> (kept: URL, tag: URL) {
    let key = ChatAccount.digest(of: url.absoluteString)
    return (cache.appendingPathComponent(key), cache.appendingPathComponent(key + ".etag"))
  }

  /// A GET of a file on the backend, conditional on `ifNoneMatch` when given.
  private struct FileEndpoint: Endpoint {
    let url: URL
    let ifNoneMatch: String?
    var baseURL: URL {
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
      components?.path = ""
      components?.query = nil
      return components?.url ?? url
    }
    var path: EndpointPath { EndpointPath(url.path.split(separator: "/").map(String.init)) }
    var method: HTTPMethod { .get }
    var headers: [String: String] { ifNoneMatch.map { ["If-None-Match": $0] } ?? [:] }
  }

  /// Forgets the least recently downloaded files of `cache` until it holds at most
  /// ``ChatConfiguration/fileCacheSize`` bytes.
  private func trimFileCache(_ cache: URL) {
    let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey]
    guard
      let files = try? FileManager.default.contentsOfDirectory(
        at: cache, includingPropertiesForKeys: keys)
    else { return }
    var entries = files.filter { $0.pathExtension.isEmpty }.compactMap { file -> (URL, Date, Int)? in
      guard let values = try? file.resourceValues(forKeys: Set(keys)) else { return nil }
      return (file, values.contentModificationDate ?? .distantPast, values.fileSize ?? 0)
    }
    var total = entries.reduce(0) { $0 + $1.2 }
    entries.sort { $0.1 < $1.1 }
    for (file, _, size) in entries where total > configuration.fileCacheSize {
      for gone in [file, file.appendingPathExtension("etag")] { try? FileManager.default.removeItem(at: gone) }
      total -= size
    }
  }
}
