import Domain
import Features
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// The app's features on the real services against the Sandbox: `Dependencies.live`, real HTTP, the encrypted token
/// file, the real rate limiter and real time (REQUIREMENTS F1–F3, A4–A6, U4, U7, U8).
@Suite("AppFeature against the Sandbox", .timeLimit(.minutes(3)))
struct AppFeatureIntegrationTests {
  @Test(
    "Sign in through the form, import 3 users, find one, then the session is revoked elsewhere: back to login",
    arguments: TransportKind.allCases)
  @MainActor
  func signInImportSearchExpire(_ kind: TransportKind) async throws {
    // GIVEN the app on live dependencies pointed at a Sandbox
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let dependencies = Dependencies.live(
      configuration: KeelConfiguration(
        sendbirdBaseURL: sandbox.baseURL, backendBaseURL: sandbox.baseURL, dataDirectory: directory,
        transport: kind.transport))
    try dependencies.users.initApplication(applicationId: "app-1", apiToken: "integration")
    let store = Store(
      initialState: AppFeature.State(), reducer: AppFeature.live(dependencies: dependencies, clock: ContinuousClock()))
    store.send(.view(.task))

    // WHEN signing in through the form
    store.send(.session(.view(.emailChanged("demo@keel.dev"))))
    store.send(.session(.view(.passwordChanged("demo-password"))))
    store.send(.session(.view(.loginTapped)))

    // THEN the home screen shows
    #expect(await waitUntil(store) { $0.screen == .home })
    #expect(store.state.session.user?.id == "user-demo")

    // WHEN importing 3 users
    let users = (1...3).map { UserCreationParams(userId: "import-\($0)", nickname: "Imported \($0)") }
    store.send(.view(.importTapped(users)))

    // THEN all are created on the server, in one batch through the rate limiter
    #expect(await waitUntil(store) { $0.lastImportReport != nil })
    let report = try #require(store.state.lastImportReport)
    #expect(report.created.map(\.userId) == users.map(\.userId))
    #expect(report.failures.isEmpty && report.interrupted.isEmpty && !report.wasCancelled)
    #expect(store.state.userImport?.progress == .init(done: 3, failed: 0, total: 3, estimatedTimeLeft: nil))
    #expect(try await dependencies.users.getUser(userId: "import-2").nickname == "Imported 2")

    // WHEN searching for one of them by nickname
    store.send(.search(.view(.queryChanged("Imported 2"))))

    // THEN it is found after the debounce
    #expect(await waitUntil(store) { $0.search?.isLoading == false && $0.search?.results.count == 1 })
    #expect(store.state.search?.results.map(\.userId) == ["import-2"])

    // WHEN the refresh token is revoked behind the app's back and the access token expires
    let credentials = try #require(
      try dependencies.environment.secureStore.value(Credentials.self, forKey: SessionManager.storageKey))
    let session = SandboxSession(access: credentials.accessToken, refresh: credentials.refreshToken)
    _ = try await HTTPClient().send(.data(SandboxRoute.logout(session, on: sandbox)))
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))
    _ = try? await dependencies.sessions.me()  // any authenticated call finds out

    // THEN the app shows the sign-in form with the reason, and the signed-in screens are gone
    #expect(await waitUntil(store) { $0.screen == .login })
    #expect(store.state.session.errorMessage == SessionFeature.expiredMessage)
    #expect(store.state.search == nil && store.state.userImport == nil)
    await dependencies.shutDown()
    await sandbox.stop()
  }
}
