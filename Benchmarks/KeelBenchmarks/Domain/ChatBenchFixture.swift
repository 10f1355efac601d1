import Chat
import Domain
import Foundation
import Logging
import NIOTransports
import Networking
import Persistence
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the chat rows share: a Sandbox with two signed-up users in one workspace, a channel holding an anchor message
/// and 1,000 messages after it (what a catch-up misses), and an empty channel for the latency rounds. The first round
/// starts it; ``stop()`` ends it.
actor ChatBenchFixture {
  /// What a round uses.
  struct Running: Sendable {
    let baseURL: URL
    let ann: SessionManager
    let bob: SessionManager
    /// Bob's access token, for the peers' hand-written requests and socket.
    let bobToken: String
    /// Ann's, likewise.
    let annToken: String
    let http: NIOHTTPTransport
    let socket: NIOWebSocketTransport
    let catchUpChannel: String
    /// The message before the missed ones: where a catch-up starts.
    let anchor: Message
    let latencyChannel: String
    /// The workspace of the channels.
    let workspaceID: String
    /// Channels of one message each, for the memory row: each conversation's older messages are put in the store
    /// beneath it, as if read long ago.
    let memoryChannels: [(id: String, newest: Message)]
  }

  /// The channels of ``Running/memoryChannels``.
  static let memoryChannelCount = 4

  /// The messages a catch-up misses.
  static let missed = 1_000

  private var sandbox: RunningSandbox?
  private var running: Running?

  /// The shared state, started on first use.
  func start() async throws -> Running {
    if let running { return running }
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(rateLimitsEnabled: false, accessTokenTTL: .seconds(3_600), logLevel: .critical))
    self.sandbox = sandbox
    let http = NIOHTTPTransport()
    func signUp(_ name: String) async throws -> SessionManager {
      let sessions = SessionManager(
        baseURL: sandbox.baseURL, transport: http, secureStore: InMemorySecureStore(), clock: ContinuousClock(),
        now: { Date() }, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
      try await sessions.signUp(email: "\(name)@bench.dev", password: "password-\(name)")
      return sessions
    }
    let ann = try await signUp("ann")
    let bob = try await signUp("bob")
    let setup = try ChatService(
      baseURL: sandbox.baseURL, sessions: ann, socketTransport: NIOWebSocketTransport(),
      directory: Self.scratchDirectory(), clock: ContinuousClock())
    let workspace = try await setup.createWorkspace(named: "Bench")
    try await setup.invite(email: "bob@bench.dev", to: workspace.id)
    let catchUp = try await setup.createChannel(named: "catch-up", in: workspace.id).id
    let latency = try await setup.createChannel(named: "latency", in: workspace.id).id
    var memory: [String] = []
    for number in 0..<Self.memoryChannelCount {
      memory.append(try await setup.createChannel(named: "memory-\(number)", in: workspace.id).id)
    }
    await setup.shutDown()
    let bobChat = try ChatService(
      baseURL: sandbox.baseURL, sessions: bob, socketTransport: NIOWebSocketTransport(),
      directory: Self.scratchDirectory(), clock: ContinuousClock())
    _ = try await bobChat.join(catchUp)
    _ = try await bobChat.join(latency)
    for channel in memory { _ = try await bobChat.join(channel) }
    await bobChat.shutDown()

    let annToken = try await ann.accessToken()
    let anchor = try await Self.post("anchor", to: catchUp, token: annToken, baseURL: sandbox.baseURL, over: http)
    var memoryChannels: [(id: String, newest: Message)] = []
    for channel in memory {
      memoryChannels.append(
        (channel, try await Self.post("newest", to: channel, token: annToken, baseURL: sandbox.baseURL, over: http)))
    }
    // The missed messages, eight at a time: the server stamps them in the order they arrive.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for lane in 0..<8 {
        group.addTask {
          for number in stride(from: lane, to: Self.missed, by: 8) {
            _ = try await Self.post(
              "missed \(number)", to: catchUp, token: annToken, baseURL: sandbox.baseURL, over: http)
          }
        }
      }
      try await group.waitForAll()
    }
    let running = Running(
      baseURL: sandbox.baseURL, ann: ann, bob: bob, bobToken: try await bob.accessToken(), annToken: annToken,
      http: http, socket: NIOWebSocketTransport(), catchUpChannel: catchUp, anchor: anchor, latencyChannel: latency,
      workspaceID: workspace.id, memoryChannels: memoryChannels)
    self.running = running
    return running
  }

  /// Stops the Sandbox and the transport.
  func stop() async {
    try? await running?.http.shutdown()
    running = nil
    await sandbox?.stop()
    sandbox = nil
  }

  /// Sends `text` to `conversation` as a hand-written client does: a multipart body in memory, a bearer token.
  static func post(
    _ text: String, to conversation: String, token: String, baseURL: URL, over transport: any HTTPTransport
  ) async throws -> Message {
    var form = MultipartFormData()
    form.append(text, name: "text")
    form.append(UUID().uuidString, name: "clientMessageId")
    var request = URLRequest(url: baseURL.appendingPathComponent("v1/conversations/\(conversation)/messages"))
    request.httpMethod = "POST"
    request.httpBody = try form.encoded()
    request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let response = try await transport.send(request)
    guard response.status == 201,
      let json = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
      let id = json["id"] as? String, let createdAt = json["createdAt"] as? Double,
      let sender = json["senderId"] as? String
    else { throw BenchmarkError(description: "a send answered \(response.status)") }
    return Message(
      id: id, clientMessageID: nil, conversationID: conversation, senderID: sender, text: text,
      createdAt: Date(timeIntervalSince1970: createdAt / 1_000))
  }

  /// A new, empty directory in the temporary directory.
  static func scratchDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-chat-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }
}
