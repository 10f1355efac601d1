import Chat
import Domain
import Features
import Foundation
import Logging
import NIOTransports
import Networking
import Persistence
import Realtime
import Sandbox
import TestSupport
import Testing

/// The composed app's chat on the real services against a Sandbox that starts with a workspace to try: sign in →
/// the last workspace → its channels → a conversation, live (REQUIREMENTS C1–C6, F1–F3).
@Suite("AppFeature's chat against the Sandbox", .timeLimit(.minutes(3)))
struct AppChatIntegrationTests {
  @Test("Sign in, the workspace's channels and DMs, a live conversation that sends and receives, back marks it read")
  @MainActor
  func signInToConversation() async throws {
    // GIVEN the app on live dependencies, and ada on her own, both against a Sandbox with the workspace to try
    var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning)
    configuration.seedsChat = true
    let sandbox = try await Sandbox.start(configuration)
    let directory = try sessionStoreDirectory("demo")
    let adaDirectory = try sessionStoreDirectory("ada")
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: adaDirectory)
    }
    func services(_ directory: URL) -> Dependencies {
      Dependencies.live(
        configuration: KeelConfiguration(
          sendbirdBaseURL: sandbox.baseURL, backendBaseURL: sandbox.baseURL, dataDirectory: directory,
          transport: TransportKind.nio.transport, webSocketTransport: NIOWebSocketTransport()))
    }
    let dependencies = services(directory)
    let ada = services(adaDirectory)
    let store = Store(
      initialState: AppFeature.State(), reducer: AppFeature.live(dependencies: dependencies, clock: ContinuousClock()))
    store.send(.view(.task))

    // WHEN demo signs in through the form
    store.send(.session(.view(.emailChanged("demo@keel.dev"))))
    store.send(.session(.view(.passwordChanged("demo-password"))))
    store.send(.session(.view(.loginTapped)))

    // THEN the chat shows the workspace, its channels (one joined, one not) and the DM from ada
    #expect(await waitUntil(store) { $0.chat?.channels.channels.count == 2 })
    #expect(store.state.chat?.channels.workspace?.name == "Keel")
    let channels = store.state.chat?.channels.channels ?? []
    #expect(channels.map(\.name) == ["general", "random"] && channels.map(\.joined) == [true, false])
    #expect(await waitUntil(store) { $0.chat?.directMessages?.rooms.count == 1 })
    #expect(store.state.chat?.directMessages?.rooms.first?.conversation.name == "ada")
    let general = try #require(channels.first)

    // WHEN demo opens #general
    store.send(.chat(.channels(.view(.channelTapped(general)))))

    // THEN it goes live with the welcome message
    #expect(await waitUntil(store) { $0.chat?.conversation?.status == .live })
    #expect(store.state.chat?.conversation?.messages.first?.text.hasPrefix("Welcome") == true)

    // WHEN ada sends, and demo sends through the draft
    _ = try await ada.sessions.login(email: "ada@keel.dev", password: "ada-password")
    let adaChat = try ada.chat
    let hello = await adaChat.outcome(of: try await adaChat.send("Hi demo", to: general.id))
    #expect(await waitUntil(store) { $0.chat?.conversation?.messages.contains { $0.id == hello.id } == true })
    store.send(.chat(.conversation(.view(.draftChanged("Hello ada")))))
    store.send(.chat(.conversation(.view(.sendTapped))))

    // THEN both show, demo's sent
    #expect(
      await waitUntil(store) {
        $0.chat?.conversation?.messages.contains { $0.text == "Hello ada" && $0.state == .sent } == true
      })

    // WHEN ada writes once more and demo leaves the conversation
    _ = await adaChat.outcome(of: try await adaChat.send("One more", to: general.id))
    #expect(await waitUntil(store) { $0.chat?.conversation?.messages.last?.text == "One more" })
    store.send(.chat(.conversation(.view(.backTapped))))

    // THEN it is gone and marked read on the server; the account's socket stays for the lists
    #expect(await waitUntil(store) { $0.chat?.conversation == nil })
    let chat = try dependencies.chat
    let unread = try await chat.refreshChannels(in: general.workspaceID).first { $0.id == general.id }?.unreadCount
    #expect(unread == 0)
    #expect(chat.connectionState.isConnected)

    // WHEN demo signs out, THEN the chat goes with the signed-in screens
    store.send(.session(.view(.logoutTapped)))
    #expect(await waitUntil(store) { $0.screen == .login && $0.chat == nil })
    #expect(
      await poll(for: .seconds(10)) { @Sendable in !chat.connectionState.isConnected },
      "its socket ends with the account")
    await ada.shutDown()
    await dependencies.shutDown()
    await sandbox.stop()
  }
}
