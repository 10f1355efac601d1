import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
  // `struct stat` is declared by headers Dispatch's C module includes too, and some builds of this target take its
  // copy, whose members MemberImportVisibility refuses unless that module is imported.
  import CDispatch
#endif

/// What the CLI trusts in a data directory: nothing inside it through a symbolic link, and nothing another user made or
/// can write. Each case is refused with 74 and one sentence before a file there is opened, created, locked or chmod'ed.
///
/// Refused runs end before any server is started; one at a time, since each is a process of its own.
@Suite("The data directory trusts no link and no other user", .serialized, .timeLimit(.minutes(10)))
struct DataDirectoryTrustTests {
  /// `keel auth whoami` on `data`, which opens every kind of thing the data directory holds, against a server that is
  /// not there: the check comes first, and a run that passes it says nobody is signed in without a request.
  static func whoami(_ data: URL) async throws -> ChildProcess.Run {
    try await Keel.run(["auth", "whoami", "--data-dir", data.path, "--base-url", "http://127.0.0.1:9"])
  }

  static func mode(_ path: String) -> mode_t {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
  }

  @Test(
    "A link in place of .keel.lock, events.sqlite, secure, chat/outbox-images or sandbox/chat-images is refused with 74; its target is untouched",
    arguments: [".keel.lock", "events.sqlite", "secure", "chat/outbox-images", "sandbox/chat-images"])
  func linksInside(entry: String) async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    // A first run makes the directory as Keel keeps it.
    let first = try await Self.whoami(data)
    #expect(first.errors.contains("Nobody is signed in"), "\(first.errors)")
    for folder in ["sandbox", "chat"] {
      try FileManager.default.createDirectory(
        at: data.appendingPathComponent(folder), withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }

    // The link's target: a file another user would like overwritten, a folder they would like chmod'ed, or nothing.
    let victimFile = directory.appendingPathComponent("victim.txt")
    let victimFolder = directory.appendingPathComponent("victim", isDirectory: true)
    let missing = directory.appendingPathComponent("planted.sqlite")
    try "keep me\n".write(to: victimFile, atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(at: victimFolder, withIntermediateDirectories: true)
    chmod(victimFolder.path, 0o755)
    let link = data.appendingPathComponent(entry)
    try FileManager.default.createDirectory(
      at: link.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try? FileManager.default.removeItem(at: link)
    let target: URL =
      switch entry {
      case ".keel.lock": victimFile
      case "events.sqlite": missing
      default: victimFolder
      }
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

    let run = try await Self.whoami(data)

    #expect(run.status == 74, "\(run.errors)")
    #expect(run.errors.contains("holds a symbolic link, \(entry)"), "\(run.errors)")
    #expect(run.errors.split(separator: "\n").count == 1, "one sentence: \(run.errors)")
    #expect(try String(contentsOf: victimFile, encoding: .utf8) == "keep me\n", "the lock's target was not written")
    #expect(Self.mode(victimFolder.path) == 0o755, "the folder's target was not chmod'ed")
    #expect(!FileManager.default.fileExists(atPath: missing.path), "nothing was created through the link")
  }

  @Test("A data directory writable by others, or one of its folders, is refused with 74 and the chmod that fixes it")
  func writableByOthers() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    chmod(data.path, 0o777)

    let open = try await Self.whoami(data)
    #expect(open.status == 74, "\(open.errors)")
    #expect(open.errors.contains("is writable by other users (mode 777)"), "\(open.errors)")
    #expect(open.errors.contains("chmod go-w \(data.path)"), "\(open.errors)")
    #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent(".keel.lock").path))

    chmod(data.path, 0o755)
    let fixed = try await Self.whoami(data)
    #expect(fixed.errors.contains("Nobody is signed in"), "the advice works: \(fixed.errors)")
    let sandbox = data.appendingPathComponent("sandbox")
    try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
    chmod(sandbox.path, 0o773)
    let inner = try await Self.whoami(data)
    #expect(inner.status == 74, "\(inner.errors)")
    #expect(inner.errors.contains("sandbox in the data directory \(data.path) is writable by other users"))
  }

  @Test("A data directory another user made, with an access key and keys of their choosing, is refused with 74")
  func someoneElsesDirectory() async throws {
    guard getuid() == 0 else {
      Issue.record("This test hands files to another user with chown, which needs root (CI runs as root).")
      return
    }
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    // Mallory makes the directory first, as the old two-user example's shared temporary folder allowed, with a key.
    let sandbox = data.appendingPathComponent("sandbox")
    try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
    try String(repeating: "ab", count: 32).write(
      to: sandbox.appendingPathComponent("access-key"), atomically: true, encoding: .utf8)
    for path in [data.path, sandbox.path, sandbox.appendingPathComponent("access-key").path] {
      #expect(chown(path, 65534, 65534) == 0)
    }
    chmod(data.path, 0o755)

    let run = try await Self.whoami(data)
    #expect(run.status == 74, "\(run.errors)")
    #expect(run.errors.contains("belongs to another user (uid 65534)"), "\(run.errors)")
    #expect(run.errors.contains("under your home"), "\(run.errors)")

    // The directory is the user's, but a file inside it is not.
    #expect(chown(data.path, getuid(), getgid()) == 0)
    let inner = try await Self.whoami(data)
    #expect(inner.status == 74, "\(inner.errors)")
    #expect(inner.errors.contains("sandbox in the data directory"), "\(inner.errors)")
    #expect(inner.errors.contains("belongs to another user (uid 65534)"), "\(inner.errors)")
  }
}
