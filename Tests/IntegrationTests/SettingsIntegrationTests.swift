import Chat
import Domain
import Features
import Foundation
import KeelConcurrency
import Logging
import NIOTransports
import Networking
import Sandbox
import TestSupport
import Testing

/// The settings, profile and sign-up screens on live services against a Sandbox: each flow as a user would go
/// through it, each refusal as the server gives it (REQUIREMENTS F1–F3, C1, A4).
@Suite("Settings screens against the Sandbox", .timeLimit(.minutes(3)))
@MainActor
struct SettingsIntegrationTests {
  /// A user's services on `sandbox`, in a directory of their own.
  private static func services(on sandbox: RunningSandbox, in directory: URL) -> Dependencies {
    Dependencies.live(
      configuration: KeelConfiguration(
        sendbirdBaseURL: sandbox.baseURL, backendBaseURL: sandbox.baseURL, dataDirectory: directory,
        transport: TransportKind.nio.transport, webSocketTransport: NIOWebSocketTransport()))
  }

  @Test("Sign up (then the same email refused as taken), then the profile: a nickname, an image with its progress")
  func signUpAndProfile() async throws {
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning))
    let directory = try chatDirectory("signup")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cy = Self.services(on: sandbox, in: directory)

    // WHEN cy signs up through the form
    let signUp = Store(initialState: SignUpFeature.State(), reducer: SignUpFeature(client: .live(cy.sessions)))
    signUp.send(.view(.emailChanged("cy@keel.dev")))
    signUp.send(.view(.passwordChanged("cy-password")))
    signUp.send(.view(.nicknameChanged("Cy")))
    await signUp.send(.view(.signUpTapped)).finish()
    // THEN the account exists and is signed in
    #expect(signUp.state.failure == nil && !signUp.state.isSigningUp)
    let user = try #require(cy.sessions.currentUser)
    #expect(user.email == "cy@keel.dev" && user.nickname == "Cy")

    // WHEN someone signs up with an email that has an account, THEN the server's E409 shows as a conflict
    let otherDirectory = try chatDirectory("signup-taken")
    defer { try? FileManager.default.removeItem(at: otherDirectory) }
    let other = Self.services(on: sandbox, in: otherDirectory)
    let taken = Store(initialState: SignUpFeature.State(), reducer: SignUpFeature(client: .live(other.sessions)))
    taken.send(.view(.emailChanged("DEMO@keel.dev")))
    taken.send(.view(.passwordChanged("another-password")))
    await taken.send(.view(.signUpTapped)).finish()
    #expect(taken.state.failure?.kind == .conflict)
    #expect(other.sessions.currentUser == nil)

    // WHEN cy changes the nickname, then uploads an image of 2 MiB
    let profile = Store(
      initialState: ProfileFeature.State(me: user), reducer: ProfileFeature(client: .live(cy.sessions)))
    profile.send(.view(.nicknameChanged("Cy Two")))
    await profile.send(.view(.saveNicknameTapped)).finish()
    #expect(profile.state.shownNickname == "Cy Two" && cy.sessions.currentUser?.nickname == "Cy Two")

    let image = directory.appendingPathComponent("avatar.png")
    try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 9, count: 2 << 20)).write(to: image)
    let progress = Recorder<Double>()
    let watching = Task { @MainActor in
      for await state in profile.states() { if let step = state.uploadProgress { progress.record(step) } }
    }
    await profile.send(.view(.imagePicked(image))).finish()
    watching.cancel()
    // THEN the progress climbed to the whole file before the answer, and the session's user has the image
    let steps = progress.elements
    #expect(steps.count > 2, "the upload's steps were shown: \(steps)")
    #expect(steps == steps.sorted() && steps.last == 1)
    #expect(profile.state.failure == nil && profile.state.uploadProgress == nil)
    #expect(profile.state.profileImage != nil && cy.sessions.currentUser?.profileImage == profile.state.profileImage)
    await cy.shutDown()
    await other.shutDown()
  }

  @Test(
    "A workspace made, its members invited (a bad and an unknown email refused), a channel renamed by its owner and not by another, handed over, left, deleted; the workspace handed over and deleted"
  )
  func workspaceAndChannel() async throws {
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning))
    let demoDirectory = try chatDirectory("admin-demo")
    let adaDirectory = try chatDirectory("admin-ada")
    defer {
      try? FileManager.default.removeItem(at: demoDirectory)
      try? FileManager.default.removeItem(at: adaDirectory)
    }
    let demo = Self.services(on: sandbox, in: demoDirectory)
    let ada = Self.services(on: sandbox, in: adaDirectory)
    let me = try await demo.sessions.login(email: "demo@keel.dev", password: "demo-password")
    let adaUser = try await ada.sessions.login(email: "ada@keel.dev", password: "ada-password")
    let demoAdmin = ChatAdminClient.live(try demo.chat)
    let adaAdmin = ChatAdminClient.live(try ada.chat)

    // WHEN demo creates a workspace through the form
    let form = Store(
      initialState: WorkspaceAdminFeature.State(me: me.id), reducer: WorkspaceAdminFeature(client: demoAdmin))
    form.send(.view(.nameChanged("Design")))
    await form.send(.view(.saveTapped)).finish()
    let workspace = try #require(form.state.workspace)
    #expect(workspace.name == "Design" && workspace.ownerID == me.id)

    // WHEN demo invites: a malformed email, one nobody has, then ada's
    let admin = Store(
      initialState: WorkspaceAdminFeature.State(workspace: workspace, me: me.id),
      reducer: WorkspaceAdminFeature(client: demoAdmin))
    await admin.send(.view(.task)).finish()
    #expect(admin.state.members.map(\.id) == [me.id])
    admin.send(.view(.inviteEmailChanged("ada at keel")))
    #expect(admin.send(.view(.inviteTapped)).isEmpty, "nothing sent")
    #expect(admin.state.inviteError != nil)
    admin.send(.view(.inviteEmailChanged("nobody@keel.dev")))
    await admin.send(.view(.inviteTapped)).finish()
    #expect(admin.state.failure?.kind == .notFound)
    admin.send(.view(.inviteEmailChanged("ada@keel.dev")))
    await admin.send(.view(.inviteTapped)).finish()
    #expect(admin.state.failure == nil && admin.state.members.map(\.id) == [me.id, adaUser.id])

    // GIVEN a channel demo owns, which ada joins
    let channel = try await demoAdmin.createChannel("plans", workspace.id)
    _ = try await ada.chat.join(channel.id)

    // WHEN ada, who does not own it, tries to rename it, THEN the server refuses, typed and worded
    let adaSettings = Store(
      initialState: ChannelSettingsFeature.State(channel: channel, me: adaUser.id),
      reducer: ChannelSettingsFeature(client: adaAdmin))
    adaSettings.send(.view(.nameChanged("mine")))
    await adaSettings.send(.view(.renameTapped)).finish()
    #expect(adaSettings.state.failure?.kind == .notAllowed)

    // WHEN demo renames it, hands it to ada (confirmed), and leaves
    let settings = Store(
      initialState: ChannelSettingsFeature.State(channel: channel, me: me.id),
      reducer: ChannelSettingsFeature(client: demoAdmin))
    await settings.send(.view(.task)).finish()
    #expect(Set(settings.state.members.map(\.id)) == [me.id, adaUser.id])
    settings.send(.view(.nameChanged("roadmap")))
    await settings.send(.view(.renameTapped)).finish()
    #expect(settings.state.channel.name == "roadmap" && settings.state.failure == nil)
    let adaMember = try #require(settings.state.handOverCandidates.first)
    settings.send(.view(.handOverTapped(adaMember)))
    #expect(settings.state.alert != nil)
    await settings.send(.view(.alert(.presented(.handOver(adaMember))))).finish()
    #expect(settings.state.channel.ownerID == adaUser.id && !settings.state.isOwner)
    await settings.send(.view(.leaveTapped)).finish()
    #expect(settings.state.channel.joined == false && settings.state.failure == nil)

    // WHEN ada, the owner now, deletes it (confirmed), THEN it is gone from the workspace
    let adaOwned = Store(
      initialState: ChannelSettingsFeature.State(channel: settings.state.channel, me: adaUser.id),
      reducer: ChannelSettingsFeature(client: adaAdmin))
    adaOwned.send(.view(.deleteTapped))
    await adaOwned.send(.view(.alert(.presented(.delete)))).finish()
    #expect(adaOwned.state.failure == nil)
    #expect(try await ada.chat.refreshChannels(in: workspace.id).contains { $0.id == channel.id } == false)

    // WHEN demo hands the workspace to ada, THEN demo may no longer delete it, and ada may
    admin.send(.view(.handOverTapped(adaMember)))
    await admin.send(.view(.alert(.presented(.handOver(adaMember))))).finish()
    #expect(admin.state.workspace?.ownerID == adaUser.id)
    admin.send(.view(.deleteTapped))
    await admin.send(.view(.alert(.presented(.delete)))).finish()
    #expect(admin.state.failure?.kind == .notAllowed)
    let adaAdminScreen = Store(
      initialState: WorkspaceAdminFeature.State(workspace: try #require(admin.state.workspace), me: adaUser.id),
      reducer: WorkspaceAdminFeature(client: adaAdmin))
    adaAdminScreen.send(.view(.deleteTapped))
    await adaAdminScreen.send(.view(.alert(.presented(.delete)))).finish()
    #expect(adaAdminScreen.state.failure == nil)
    #expect(try await ada.chat.refreshWorkspaces().contains { $0.id == workspace.id } == false)
    await demo.shutDown()
    await ada.shutDown()
  }
}
