import Chat
import Domain
import Foundation
import KeelConcurrency
import Logging
import NIOTransports
import Networking
import Persistence
import Realtime
import Sandbox
import Testing

/// One user of a chat test: a session signed up on the Sandbox and a chat service in a directory of its own.
struct ChatUser {
  let sessions: SessionManager
  let chat: ChatService
  let id: String
  let directory: URL

  /// Signs `name@example.com` up on `sandbox` and starts a chat service for them, its REST over `transport` and its
  /// socket over NIO; `now` is the service's time (its images' freshness too).
  static func signUp(
    _ name: String, on sandbox: RunningSandbox, transport: any HTTPTransport,
    configuration: ChatConfiguration = .testing, directory: URL? = nil,
    now: @escaping @Sendable () -> Date = { Date() }, signingUp: Bool = true
  ) async throws -> ChatUser {
    let directory = try directory ?? chatDirectory(name)
    let sessions = SessionManager(
      baseURL: sandbox.baseURL, transport: transport,
      secureStore: try EncryptedFileSecureStore(directory: directory.appendingPathComponent("secure")),
      clock: ContinuousClock(), now: { Date() },
      logger: Logger(label: "keel.tests.chat") { _ in SwiftLogNoOpLogHandler() })
    let user =
      signingUp
      ? try await sessions.signUp(email: "\(name)@example.com", password: "password-\(name)")
      : try await sessions.login(email: "\(name)@example.com", password: "password-\(name)")
    let chat = try ChatService(
      baseURL: sandbox.baseURL, sessions: sessions, socketTransport: chatSocketTransport,
      directory: directory.appendingPathComponent("chat"), settings: InMemoryKeyValueStore(),
      configuration: configuration, clock: ContinuousClock(), now: now)
    return ChatUser(sessions: sessions, chat: chat, id: user.id, directory: directory)
  }
}

extension ChatUser {
  /// `name@example.com`, signed up already, on another device: a session and a chat service in a directory of their
  /// own.
  static func signIn(_ name: String, on sandbox: RunningSandbox, transport: any HTTPTransport) async throws -> ChatUser
  {
    try await signUp(
      name, on: sandbox, transport: transport, directory: chatDirectory("\(name)-other"), signingUp: false)
  }
}

/// A live stream followed in a task of its own: every value it gave, and how it ended.
final class Following<Value: Sendable>: Sendable {
  let values = Locked<[Value]>([])
  /// `nil` while it runs; then its error, or `nil` inside for a stream that finished.
  let ending = Locked<(any Error)??>(nil)
  private let task: Task<Void, Never>

  init(_ stream: AsyncThrowingStream<Value, any Error>) {
    let (values, ending) = (values, ending)
    task = Task {
      do {
        for try await value in stream { values.withLock { $0.append(value) } }
        ending.withLock { $0 = .some(nil) }
      } catch {
        ending.withLock { $0 = .some(error) }
      }
    }
  }

  /// Follows a stream that cannot fail.
  convenience init(_ stream: AsyncStream<Value>) {
    self.init(
      AsyncThrowingStream<Value, any Error> { continuation in
        let task = Task {
          for await value in stream { continuation.yield(value) }
          continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
      })
  }

  deinit { task.cancel() }

  /// The newest value once `condition` holds for it, or `nil` after a minute.
  func until(_ condition: @escaping (Value) -> Bool) async -> Value? {
    let held = await chatPoll { values.withLock { $0.last.map(condition) ?? false } }
    return held ? values.withLock { $0.last } : nil
  }

  /// Whether at least `count` values came within a minute.
  func received(_ count: Int) async -> Bool {
    await chatPoll { values.withLock { $0.count >= count } }
  }
}

/// The WebSocket every chat test's socket runs on (URLSession has none on Linux).
let chatSocketTransport = NIOWebSocketTransport(configuration: NIOWebSocketConfiguration(connectTimeout: .seconds(60)))

extension ChatConfiguration {
  /// Short waits, so that a test that drops connections and fails sends finishes in seconds.
  static var testing: ChatConfiguration {
    ChatConfiguration(
      retryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200),
      reconnection: ReconnectionPolicy(initialDelay: .milliseconds(50), maxDelay: .milliseconds(300)))
  }
}

/// The chat's integration suites, one test at a time: each runs two users, a Sandbox and their sockets, and side by
/// side (ten times slower under ThreadSanitizer) they starved the rest of the test run past its time limits.
@Suite("Chat against the Sandbox", .serialized, .timeLimit(.minutes(10)))
enum ChatAgainstSandbox {}

/// Whether the tests run under ThreadSanitizer (`make tsan` sets `KEEL_TSAN`).
let underThreadSanitizer = ProcessInfo.processInfo.environment["KEEL_TSAN"] != nil

/// How many messages and socket drops the no-loss test uses: the full 200 and 50, or 60 and 15 under
/// ThreadSanitizer (`make tsan` sets `KEEL_TSAN`), where the same test looks for races rather than counts, and its
/// full size, ten times slower, starved the rest of the suite past their time limits on two cores.
let chatNoLossScale: (messages: Int, drops: Int) = underThreadSanitizer ? (60, 15) : (200, 50)

/// A fresh, empty directory for a chat test's user.
func chatDirectory(_ name: String) throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("keel-chat-tests", isDirectory: true)
    .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// A tiny PNG file (its signature is what the Sandbox checks), written to `directory`.
func pngFile(in directory: URL, named name: String = "photo.png", filler: UInt8 = 7) throws -> URL {
  let url = directory.appendingPathComponent(name)
  try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data(repeating: filler, count: 64))
    .write(to: url)
  return url
}

/// Checks `condition` every 20 ms of real time until it holds or `timeout` has passed (the guard of a test that waits
/// for a server and sockets; never a measure of speed). A condition that throws does not hold.
func chatPoll(
  for timeout: Duration = .seconds(60), until condition: () async throws -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while !((try? await condition()) ?? false) {
    guard ContinuousClock.now < deadline else { return false }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return true
}

/// The messages `conversation` shows once `condition` holds for its snapshot, or `nil` after a minute.
func chatSnapshot(
  of conversation: ChatConversation, until condition: @escaping (ConversationSnapshot) -> Bool
) async -> ConversationSnapshot? {
  let held = await chatPoll { condition(conversation.snapshot) }
  return held ? conversation.snapshot : nil
}
