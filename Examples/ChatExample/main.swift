/// The chat service from sign-in to a live conversation, on an embedded Sandbox that starts with a workspace to try:
/// lists from the store then the server, joining a channel, a conversation that shows its stored messages, catches
/// up and goes live, a message from another user arriving over the socket, a message with an image that shows
/// pending at once and sent when the server has it, and a conversation that catches up on what came while the app was
/// in the background. Two users, each with their own services and files, as on two devices. Then the app itself,
/// walked through as a user would through its features (`AppWalkthrough`): sign up, create a workspace, invite, create
/// a channel, chat, rename it, hand it over, leave, sign out.
import Chat
import Domain
import ExampleSupport
import Foundation
import KeelConcurrency
import KeelFiles
import Logging
import NIOTransports
import Networking
import Persistence
import Sandbox

let start = ContinuousClock.now
var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning)
configuration.seedsChat = true
let sandbox = await startSandbox(configuration)
let root = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-chat-example-\(UUID().uuidString)", isDirectory: true)

/// One user's services, with files of their own: the NIO transports, since URLSession has no WebSocket on Linux.
func services(_ name: String) -> Dependencies {
  Dependencies.live(
    configuration: KeelConfiguration(
      backendBaseURL: sandbox.baseURL, dataDirectory: root.appendingPathComponent(name), logLevel: .error,
      transport: NIOHTTPTransport(), webSocketTransport: NIOWebSocketTransport()))
}

/// The first snapshot of `conversation` that meets `condition`, within 10 s.
func snapshot(
  of conversation: ChatConversation, where condition: @escaping @Sendable (ConversationSnapshot) -> Bool
) async -> ConversationSnapshot? {
  await firstElement(of: conversation.snapshots(), within: .seconds(10), where: condition)
}

let demo = services("demo")
let ada = services("ada")
var failure: (any Error)?
do {
  let me = try await demo.sessions.login(email: "demo@keel.dev", password: "demo-password")
  _ = try await ada.sessions.login(email: "ada@keel.dev", password: "ada-password")
  let chat = try demo.chat
  step("login(demo@keel.dev), then dependencies.chat", "signed in as \(me.id); the chat keeps its store in demo/chat")

  var lists: [[Workspace]] = []
  for try await workspaces in chat.workspaces().prefix(2) { lists.append(workspaces) }
  step(
    "workspaces()", lists.map { "\($0.map(\.name))" }.joined(separator: " from the store, then ") + " from the server")
  try check(lists.last?.map(\.name) == ["Keel"], "The workspaces are \(lists), not the Sandbox's Keel.")
  let workspace = try required(lists.last?.first, "There is no workspace.")

  let channels = try await chat.refreshChannels(in: workspace.id)
  let general = try required(channels.first { $0.name == "general" }, "There is no #general.")
  let random = try required(channels.first { $0.name == "random" }, "There is no #random.")
  step("refreshChannels", channels.map { "#\($0.name) \($0.joined ? "joined" : "not joined")" }.joined(separator: ", "))
  try check(general.joined && !random.joined, "#general should be joined and #random not: \(channels).")
  let joined = try await chat.join(random.id)
  step("join(#random)", joined.joined ? "joined" : "still not joined")
  try check(joined.joined, "Joining #random did not take.")

  let rooms = try await chat.refreshDirectMessages(in: workspace.id)
  step("refreshDirectMessages", rooms.map { "@\($0.conversation.name): \($0.lastMessage?.text ?? "-")" }.joined())
  try check(rooms.count == 1 && rooms[0].lastMessage != nil, "The DM with ada is missing: \(rooms).")

  let conversation = try await chat.open(general.id)
  let status = await conversation.caughtUp()
  step("open(#general)", "\(conversation.snapshot.messages.count) message(s), \(status)")
  try check(status == .live, "#general is \(status), not live.")

  let adaChat = try ada.chat
  let hello = await adaChat.outcome(of: try await adaChat.send("Hello from ada", to: general.id))
  let live = await snapshot(of: conversation) { $0.messages.contains { $0.id == hello.id } }
  step("ada sends to #general", live == nil ? "never arrived" : "arrived over the socket as \(hello.id ?? "?")")
  try check(live != nil, "Ada's message did not arrive within 10 s.")

  let picture = root.appendingPathComponent("picture.png")
  try OwnerOnlyFiles.write(
    try await demo.images.data(for: sandbox.baseURL.appendingPathComponent("images/example.png")), to: picture)
  let pending = try await chat.send("A picture", images: [picture], to: general.id)
  let settled = await chat.outcome(of: pending)
  step("send(text, 1 image)", "\(pending.state) at once, then \(settled.state) as \(settled.id ?? "?")")
  try check(
    pending.state == .pending && settled.state == .sent, "The message went \(pending.state) → \(settled.state).")
  try check(settled.images.count == 1, "The sent message has \(settled.images.count) images.")

  await chat.appDidEnterBackground()
  let missed = await adaChat.outcome(of: try await adaChat.send("Sent while demo was away", to: general.id))
  await chat.appWillEnterForeground()
  let caught = await snapshot(of: conversation) { $0.messages.contains { $0.id == missed.id } && $0.status == .live }
  step("background, ada sends, foreground", caught == nil ? "not caught up" : "caught up: \(missed.id ?? "?") shows")
  try check(caught != nil, "The message sent while in the background did not show within 10 s.")

  let ids = conversation.snapshot.messages.compactMap(\.id)
  try check(Set(ids).count == ids.count, "A message shows twice: \(ids).")
  await conversation.close()

  print("The app, through its features:")
  try await AppWalkthrough.run(on: sandbox, in: root.appendingPathComponent("app")) { step($0, $1) }
} catch {
  failure = error
}
await demo.shutDown()
await ada.shutDown()
await sandbox.stop()
try? FileManager.default.removeItem(at: root)
finish(failure, since: start)
