import Chat
import Domain
import Features
import Foundation
import KeelConcurrency
import Logging
import NIOTransports
import Networking
import Sandbox

/// The chat app walked through as a user would, through its features on a live Sandbox: sign up, create a workspace,
/// invite a member, create a channel, chat with her, rename the channel, hand it over, leave it, sign out. Every step
/// is an action of one `AppFeature` store, the app's own; the member is a second user on services of her own. What
/// `ChatExample` prints and an integration test checks.
@MainActor
public enum AppWalkthrough {
  /// Walks through the app against `sandbox` (started with `SandboxConfiguration.tryingAccounts`, so that
  /// `ada@keel.dev` exists), keeping files under `root`; tells `report` each step and what came of it.
  ///
  /// - Throws: ``ExampleFailure`` at the first step whose outcome is wrong, or a service's error.
  public static func run(
    on sandbox: RunningSandbox, in root: URL, report: (_ step: String, _ result: String) -> Void
  ) async throws {
    func services(_ name: String) -> Dependencies {
      Dependencies.live(
        configuration: KeelConfiguration(
          backendBaseURL: sandbox.baseURL, dataDirectory: root.appendingPathComponent(name), logLevel: .error,
          transport: NIOHTTPTransport(), webSocketTransport: NIOWebSocketTransport()))
    }
    let mine = services("newt")
    let adas = services("ada")
    do {
      try await walk(mine, adas, report: report)
    } catch {
      await mine.shutDown()
      await adas.shutDown()
      throw error
    }
    await mine.shutDown()
    await adas.shutDown()
  }

  private static func walk(
    _ mine: Dependencies, _ adas: Dependencies, report: (_ step: String, _ result: String) -> Void
  ) async throws {
    let app = Store(
      initialState: AppFeature.State(), reducer: AppFeature.live(dependencies: mine, clock: ContinuousClock()))

    /// Waits up to 20 s for the app's state to meet `condition`; fails the walk-through with `sentence` otherwise.
    func until(_ sentence: String, _ condition: @escaping @Sendable (AppFeature.State) -> Bool) async throws {
      let met = await firstElement(of: app.states(), within: .seconds(20), where: condition)
      try check(met != nil, sentence)
    }
    /// Sends `action` to the screen on top of the navigation stack.
    func onTop(_ action: AppFeature.Path.Action) throws {
      let id = try required(app.state.path.ids.last, "No screen is pushed.")
      app.send(.path(.element(id: id, action: action)))
    }

    app.send(.view(.task))
    app.send(.view(.signUpTapped))
    app.send(.signUp(.presented(.view(.emailChanged("newt@keel.dev")))))
    app.send(.signUp(.presented(.view(.passwordChanged("newt-password")))))
    app.send(.signUp(.presented(.view(.nicknameChanged("Newt")))))
    app.send(.signUp(.presented(.view(.signUpTapped))))
    try await until("Signing up did not show the home screen.") { $0.screen == .home && $0.signUp == nil }
    report("sign up newt@keel.dev", "signed in as \(app.state.session.user?.id ?? "?"), in no workspace yet")

    app.send(.view(.createWorkspaceTapped))
    try onTop(.workspaceAdmin(.view(.nameChanged("Design"))))
    try onTop(.workspaceAdmin(.view(.saveTapped)))
    try await until("The new workspace is not shown.") { $0.path.isEmpty && $0.currentWorkspace?.name == "Design" }
    report("create the workspace Design", "the form popped itself; the chat shows Design")

    app.send(.view(.workspaceSettingsTapped))
    try onTop(.workspaceAdmin(.view(.inviteEmailChanged("ada@keel.dev"))))
    try onTop(.workspaceAdmin(.view(.inviteTapped)))
    try await until("Inviting ada did not add her.") { state in
      guard case .workspaceAdmin(let admin)? = state.path.last else { return false }
      return admin.members.contains { $0.email == "ada@keel.dev" }
    }
    app.send(.path(.popFrom(id: try required(app.state.path.ids.last, "No screen is pushed."))))
    report("invite ada@keel.dev", "Design has 2 members")

    app.send(.chat(.channels(.view(.createChannelTapped("plans")))))
    try await until("The new channel did not open live.") {
      $0.chat?.conversation?.conversation.name == "plans" && $0.chat?.conversation?.status == .live
    }
    let channel = try required(app.state.chat?.conversation?.conversation, "No conversation is open.")
    report("create #plans", "it opened, live")

    let ada = try await adas.sessions.login(email: "ada@keel.dev", password: "ada-password")
    let adaChat = try adas.chat
    _ = try await adaChat.join(channel.id)
    _ = await adaChat.outcome(of: try await adaChat.send("Hi Newt", to: channel.id))
    app.send(.chat(.conversation(.view(.draftChanged("Hello ada")))))
    app.send(.chat(.conversation(.view(.sendTapped))))
    try await until("The two messages did not both show.") { state in
      let messages = state.chat?.conversation?.messages ?? []
      return messages.contains { $0.text == "Hi Newt" }
        && messages.contains { $0.text == "Hello ada" && $0.state == .sent }
    }
    report("ada joins and writes; newt answers", "both messages show, newt's sent")

    app.send(.view(.channelSettingsTapped))
    try onTop(.channelSettings(.view(.nameChanged("roadmap"))))
    try onTop(.channelSettings(.view(.renameTapped)))
    try await until("The rename did not reach the conversation.") {
      $0.chat?.conversation?.conversation.name == "roadmap"
    }
    report("rename #plans", "#roadmap, in the settings and the open conversation")

    try await until("The channel's members did not load.") { state in
      guard case .channelSettings(let settings)? = state.path.last else { return false }
      return settings.members.contains { $0.id == ada.id }
    }
    guard case .channelSettings(let settings)? = app.state.path.last else { throw ExampleFailure("No settings.") }
    let member = try required(settings.members.first { $0.id == ada.id }, "Ada is not a member.")
    try onTop(.channelSettings(.view(.handOverTapped(member))))
    try onTop(.channelSettings(.view(.alert(.presented(.handOver(member))))))
    try await until("The hand-over did not take.") { state in
      guard case .channelSettings(let settings)? = state.path.last else { return false }
      return settings.channel.ownerID == ada.id
    }
    report("hand #roadmap to ada (confirmed)", "ada owns it")

    try onTop(.channelSettings(.view(.leaveTapped)))
    try await until("Leaving did not pop the settings and close the conversation.") {
      $0.path.isEmpty && $0.chat?.conversation == nil
    }
    report("leave #roadmap", "the settings popped themselves and the conversation closed")

    app.send(.view(.sideMenuTapped))
    app.send(.view(.signOutTapped))
    try await until("Signing out did not show the sign-in form.") { $0.screen == .login && $0.chat == nil }
    report("sign out from the side menu", "the sign-in form shows")
  }
}
