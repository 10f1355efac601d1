// A child process for the crash tests of the event tracker (REQUIREMENTS E2, E3) and the chat outbox (C5): it tracks
// events or sends messages until the test kills it with SIGKILL.
//
// `DomainCrashHelper <queue file> <base URL> <api token> <first> <end>` opens an EventTracker on the queue file, writes
// `ready`, then tracks the events numbered `first..<end`, one at a time, and after each `track` returns writes
// `tracked <n>` to standard output in one unbuffered write. Then it writes `done` and goes on uploading until it is
// killed, or exits after a minute so that a test that lost track of it leaves no process behind.
//
// `DomainCrashHelper chat <directory> <base URL> <conversation> <first> <end>` signs in with the session kept in
// `<directory>/secure`, opens a ChatService on `<directory>/chat`, writes `ready`, sends the messages `crash NN` for
// `first..<end` (each `queued <n>` once the outbox has it), writes `done`, then waits until the outbox is empty,
// writes `drained` and exits; or is killed first.
//
// `DomainCrashHelper changes <directory> <base URL> <edit id> <delete id> <react id>` opens the same, writes `ready`,
// queues an edit of the first message, a deletion of the second and a 👍 on the third (each `queued <kind>`; none
// when the ids are empty), writes `done`, then waits for the outbox to empty, writes `drained` and exits; or is
// killed first.
import Chat
import CrashFixtures
import Domain
import Foundation
import Logging
import Networking
import Persistence

/// Writes `line` to standard output at once: the parent reads it even if the next instant is a SIGKILL.
func report(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A ChatService on `directory`, signed in with the session kept there, sending again quickly after a failure.
func chatService(_ directory: URL, _ baseURL: URL) throws -> ChatService {
  let sessions = SessionManager(
    baseURL: baseURL, transport: URLSessionTransport(),
    secureStore: try EncryptedFileSecureStore(directory: directory.appendingPathComponent("secure")),
    clock: ContinuousClock(), now: { Date() }, logger: Logger(label: "crash") { _ in SwiftLogNoOpLogHandler() })
  // No conversation is opened, so the socket never connects: its transport only has to exist.
  return try ChatService(
    baseURL: baseURL, sessions: sessions, socketTransport: URLSessionWebSocketTransport(),
    directory: directory.appendingPathComponent("chat"),
    configuration: ChatConfiguration(retryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200)),
    clock: ContinuousClock())
}

/// Waits up to a minute for `chat`'s outbox to empty, writes `drained`, and exits.
func drain(_ chat: ChatService) async throws -> Never {
  let deadline = ContinuousClock.now + .seconds(60)
  while try await chat.outboxCount() > 0, ContinuousClock.now < deadline {
    try await Task.sleep(for: .milliseconds(20))
  }
  report("drained")
  await chat.shutDown()
  exit(0)
}

/// The chat mode: sends `crash NN` messages through a ChatService's outbox.
func sendMessages(_ arguments: [String]) async throws {
  guard arguments.count == 5, let baseURL = URL(string: arguments[1]), let first = Int(arguments[3]),
    let end = Int(arguments[4])
  else {
    FileHandle.standardError.write(
      Data("usage: DomainCrashHelper chat <directory> <base URL> <conversation> <first> <end>\n".utf8))
    exit(64)
  }
  let chat = try chatService(URL(fileURLWithPath: arguments[0], isDirectory: true), baseURL)
  report("ready")
  for number in first..<end {
    _ = try await chat.send(CrashFixtures.chatText(number), to: arguments[2])
    report("queued \(number)")
  }
  report("done")
  try await drain(chat)
}

/// The changes mode: an edit, a deletion and a reaction of stored messages through a ChatService's outbox.
func changeMessages(_ arguments: [String]) async throws {
  guard arguments.count == 5, let baseURL = URL(string: arguments[1]) else {
    FileHandle.standardError.write(
      Data("usage: DomainCrashHelper changes <directory> <base URL> <edit id> <delete id> <react id>\n".utf8))
    exit(64)
  }
  let chat = try chatService(URL(fileURLWithPath: arguments[0], isDirectory: true), baseURL)
  report("ready")
  if !arguments[2].isEmpty {
    func stored(_ id: String) async throws -> Message {
      guard let message = try await chat.message(id: id) else { throw CocoaError(.fileNoSuchFile) }
      return message
    }
    _ = try await chat.edit(try await stored(arguments[2]), text: CrashFixtures.editedText)
    report("queued edit")
    _ = try await chat.delete(try await stored(arguments[3]))
    report("queued delete")
    _ = try await chat.react("👍", to: try await stored(arguments[4]))
    report("queued reaction")
  }
  report("done")
  try await drain(chat)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "chat" || arguments.first == "changes" {
  do {
    if arguments.first == "chat" {
      try await sendMessages(Array(arguments.dropFirst()))
    } else {
      try await changeMessages(Array(arguments.dropFirst()))
    }
  } catch {
    FileHandle.standardError.write(Data("DomainCrashHelper: \(error)\n".utf8))
    exit(1)
  }
}
let durabilities = ["survivesCrash": Durability.survivesCrash, "survivesPowerLoss": .survivesPowerLoss]
guard (5...6).contains(arguments.count), let baseURL = URL(string: arguments[1]), let first = Int(arguments[3]),
  let end = Int(arguments[4]), let durability = durabilities[arguments.count == 6 ? arguments[5] : "survivesCrash"]
else {
  FileHandle.standardError.write(
    Data(
      "usage: DomainCrashHelper <queue file> <base URL> <api token> <first> <end> [survivesCrash|survivesPowerLoss]\n"
        .utf8))
  exit(64)
}
do {
  // The same short delays as the in-process tests: a killed upload is retried within milliseconds of the restart.
  let tracker = try EventTracker(
    baseURL: baseURL, apiToken: arguments[2], queueURL: URL(fileURLWithPath: arguments[0]),
    settings: InMemoryKeyValueStore(),
    transport: URLSessionTransport(), monitor: ManualNetworkMonitor(.online),
    configuration: EventTrackerConfiguration(
      flushInterval: .milliseconds(100), baseRetryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200),
      durability: durability),
    clock: ContinuousClock())
  report("ready")
  for number in first..<end {
    try await tracker.track(
      AnalyticsEvent(
        name: "event_\(number)", properties: ["number": .number(Double(number))], eventId: CrashFixtures.eventId(number)
      )
    )
    report("tracked \(number)")
  }
  report("done")
  try await Task.sleep(for: .seconds(60))
  await tracker.shutDown()
} catch {
  FileHandle.standardError.write(Data("DomainCrashHelper: \(error)\n".utf8))
  exit(1)
}
