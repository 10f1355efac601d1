import Chat
import Domain
import Foundation
import KeelConcurrency
import Logging
import Networking
import Sandbox
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension ChatAgainstSandbox {
  /// Files beside a message's images: streamed up from the outbox's copy with progress, cancelled, downloaded to disk
  /// through the session's token and kept for the next download (SandboxAPI §7).
  @Suite("Chat files", .timeLimit(.minutes(5)))
  struct ChatFilesIntegrationTests {
    @Test(
      "A 25 MiB file goes up and comes down byte-exact with progress; kept for the next download; others refused"
    )
    func roundTrip() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: TransportKind.nio.transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: TransportKind.nio.transport)
      let cat = try await ChatUser.signUp("cat", on: sandbox, transport: TransportKind.nio.transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      _ = try await bob.chat.join(general.id)

      // 25 MiB that no two offsets share a pattern of, under a name with a line break and an escape in it.
      let size = 25 << 20
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      let bytes = Data(
        (0..<size).map { _ in
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          return UInt8(truncatingIfNeeded: state >> 56)
        })
      let file = ann.directory.appendingPathComponent("report\n\u{1B}[31m.bin")
      try bytes.write(to: file)

      let pending = try await ann.chat.send("the report", files: [file], to: general.id)
      #expect(pending.files.first?.name == "report__[31m.bin", "made safe: no line break, no escape")
      let steps = Task {
        var steps: [TransferProgress] = []
        for await step in ann.chat.uploadProgress(of: pending) { steps.append(step) }
        return steps
      }
      let sent = await ann.chat.outcome(of: pending)
      #expect(sent.state == .sent, "\(sent.failureReason ?? "")")
      let uploaded = await steps.value
      #expect(uploaded.count >= 10, "progress \(uploaded.count) times")
      #expect(uploaded.last.map { $0.completedBytes == $0.expectedBytes } == true)
      let attached = try #require(sent.files.first)
      #expect(attached.size == Int64(size) && attached.name == "report__[31m.bin")
      #expect(attached.url.hasPrefix("/v1/chat-files/"))

      // A destination that cannot be written is the device's trouble, not the network's.
      let unwritable = await #expect(throws: ChatError.self) {
        try await bob.chat.download(attached.url, to: bob.directory.appendingPathComponent("missing/report.bin"))
      }
      #expect(unwritable?.kind == .storage)

      // Bob downloads it: streamed to disk, byte-exact, with progress.
      let destination = bob.directory.appendingPathComponent("report.bin")
      let received = Locked<[TransferProgress]>([])
      try await bob.chat.download(attached.url, to: destination) { step in received.withLock { $0.append(step) } }
      #expect(try Data(contentsOf: destination) == bytes)
      #expect(received.withLock { $0.count } >= 10, "progress \(received.withLock { $0.count }) times")
      let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? NSNumber
      #expect(mode?.intValue == 0o600)

      // Again: the server says it has not changed (304) and the kept copy is written; then with the server gone too.
      let again = bob.directory.appendingPathComponent("again.bin")
      let second = Locked<[TransferProgress]>([])
      try await bob.chat.download(attached.url, to: again) { step in second.withLock { $0.append(step) } }
      #expect(try Data(contentsOf: again) == bytes)
      #expect(second.withLock { $0 } == [TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size))])

      // A kept copy cut short (as a power loss can leave one: downloads are not flushed) is never used: it comes again.
      let cache = try #require(
        FileManager.default.enumerator(at: bob.directory, includingPropertiesForKeys: nil)?
          .compactMap { $0 as? URL }.first { $0.lastPathComponent == "file-cache" })
      let copy = try #require(
        try FileManager.default.contentsOfDirectory(at: cache, includingPropertiesForKeys: nil)
          .first { $0.pathExtension.isEmpty })
      try FileHandle(forWritingTo: copy).truncate(atOffset: 1_000)
      let third = Locked<[TransferProgress]>([])
      try await bob.chat.download(attached.url, to: again) { step in third.withLock { $0.append(step) } }
      #expect(try Data(contentsOf: again) == bytes)
      #expect(third.withLock { $0.count } >= 10, "downloaded again: \(third.withLock { $0.count }) steps")

      // The app edits the file it got at once, in place and keeping its size, most likely before its copy is kept:
      // what is kept is the server's file or nothing, never the edit.
      let edit = try FileHandle(forWritingTo: again)
      try edit.write(contentsOf: Data("edited".utf8))
      try edit.close()
      let fourth = bob.directory.appendingPathComponent("fourth.bin")
      try await bob.chat.download(attached.url, to: fourth)
      #expect(try Data(contentsOf: fourth) == bytes)

      // Cat is no member: the server does not show her the file.
      let refused = await #expect(throws: ChatError.self) {
        try await cat.chat.download(attached.url, to: cat.directory.appendingPathComponent("x"))
      }
      #expect(refused?.kind == .notFound)
      await #expect(throws: ChatError.self, "not the backend's") {
        try await bob.chat.download("https://elsewhere.example/f1", to: destination)
      }

      // Ann deletes the message: the file is gone from the server, and from Bob's kept copies at his next download.
      let deletion = try await ann.chat.delete(sent)
      #expect(try await ann.chat.outcome(of: deletion))
      let gone = await #expect(throws: ChatError.self) {
        try await bob.chat.download(attached.url, to: bob.directory.appendingPathComponent("gone.bin"))
      }
      #expect(gone?.kind == .notFound)
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await cat.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A cancelled upload fails its message, keeps nothing on the server, and a resend sends it whole")
    func cancel() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let gate = GatedUploads(TransportKind.nio.transport)
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: gate)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      let file = ann.directory.appendingPathComponent("notes.txt")
      try Data(repeating: 0x61, count: 3 << 20).write(to: file)

      let pending = try await ann.chat.send("notes", files: [file], to: general.id)
      var steps = ann.chat.uploadProgress(of: pending).makeAsyncIterator()
      #expect(await steps.next() != nil, "the upload began")
      try await ann.chat.cancel(pending)
      let failed = await ann.chat.outcome(of: pending)
      #expect(failed.state == .failed && failed.failureReason == "Cancelled before the server had it.")
      #expect(await steps.next() == nil, "its progress ends with it")
      #expect(gate.uploadsStarted == 0, "nothing reached the server")
      await #expect(throws: ChatError.self, "no longer pending") { try await ann.chat.cancel(pending) }

      gate.open()
      try await ann.chat.resend(failed)
      var resent = failed
      resent.state = .pending
      let sent = await ann.chat.outcome(of: resent)
      #expect(sent.state == .sent && sent.files.first?.size == 3 << 20)
      let copy = ann.directory.appendingPathComponent("copy.txt")
      try await ann.chat.download(try #require(sent.files.first).url, to: copy)
      #expect(try Data(contentsOf: copy) == Data(contentsOf: file))
      await ann.chat.shutDown()
      await sandbox.stop()
    }
  }
}

/// A transport whose uploads, while the gate is shut, report that they began and then wait before anything is sent:
/// a test cancels one under way without racing the loopback network.
final class GatedUploads: HTTPTransport, FileTransferTransport {
  private let base: any HTTPTransport
  private let shut = Locked(true)
  private let started = Locked(0)

  init(_ base: any HTTPTransport) { self.base = base }

  /// How many uploads went past the gate to the server.
  var uploadsStarted: Int { started.withLock { $0 } }

  /// Lets every upload through from now on.
  func open() { shut.withLock { $0 = false } }

  func send(_ request: URLRequest) async throws -> RawResponse { try await base.send(request) }

  func download(_ request: URLRequest, to destination: URL) -> TransferEvents {
    base.fileTransfers!.download(request, to: destination)
  }

  func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents {
    let (stream, continuation) = AsyncThrowingStream<TransferEvent, any Error>.makeStream()
    let task = Task { [base, shut, started] in
      do {
        continuation.yield(.progress(TransferProgress(completedBytes: 0, expectedBytes: nil)))
        while shut.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        started.withLock { $0 += 1 }
        for try await event in base.fileTransfers!.upload(request, fromFile: source) { continuation.yield(event) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return TransferEvents(stream)
  }
}
