import Chat
import Clocks
import Domain
import Foundation
import Logging
import Networking
import Persistence
import TestSupport
import Testing

/// The chat as the composition root builds it; on fakes, since what is checked here is that nothing is sent.
@Suite("The chat in the composition root", .timeLimit(.minutes(10)))
struct ChatDependenciesTests {
  @Test("Without a chat backend the chat is not built: notConfigured, naming the setting, with nothing sent")
  func noBackend() throws {
    let transport = FakeTransport()
    let environment = Dependencies.Environment(
      transport: transport, monitor: ManualNetworkMonitor(.online), secureStore: InMemorySecureStore(),
      dataDirectory: nil, clock: TestClock(), now: { Date(timeIntervalSince1970: 1_000_000) },
      logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    let dependencies = Dependencies.wired(configuration: KeelConfiguration(), environment: environment)
    let error = #expect(throws: ChatError.self) { _ = try dependencies.chat }
    #expect(error?.kind == .notConfigured)
    #expect(
      error?.description
        == "Cannot use the chat: no chat backend is configured (KeelConfiguration.backendBaseURL); nothing was sent.")
    #expect(transport.requests.isEmpty)
  }
}
