import ExampleSupport
import Foundation
import Logging
import Sandbox
import Testing

/// The composed app on live dependencies against the Sandbox, walked through as `ChatExample` walks it: sign up,
/// create a workspace, invite, create a channel, chat, rename it, hand it over, leave, sign out (REQUIREMENTS F1–F3,
/// C1–C6). Each step fails the test with the sentence of the first outcome that is wrong.
@Suite("The app walked through against the Sandbox", .timeLimit(.minutes(3)))
struct AppWalkthroughIntegrationTests {
  @Test("Sign up, workspace, invite, channel, chat, rename, hand over, leave, sign out: each through the app's store")
  @MainActor
  func walkthrough() async throws {
    var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning)
    configuration.seedsChat = true
    let sandbox = try await Sandbox.start(configuration)
    let root = try chatDirectory("walkthrough")
    defer { try? FileManager.default.removeItem(at: root) }
    var steps: [String] = []
    do {
      try await AppWalkthrough.run(on: sandbox, in: root) { step, _ in steps.append(step) }
    } catch {
      Issue.record("after \(steps.count) steps (\(steps.last ?? "none")): \(error)")
    }
    #expect(steps.count == 9, "\(steps)")
    await sandbox.stop()
  }
}
