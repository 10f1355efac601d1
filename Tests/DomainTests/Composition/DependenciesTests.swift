import Clocks
import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

/// The composition root: one graph, built once, around real collaborators or fakes.
/// What it checks is the wiring itself, on the fakes `wired` is given; `Dependencies.live` runs against the Sandbox in
/// `AppFeatureIntegrationTests`, `AppChatIntegrationTests` and `SendbirdUserManagerIntegrationTests`.
@Suite(.timeLimit(.minutes(10))) struct DependenciesTests {
  private func fakes(directory: URL?) -> (Dependencies.Environment, FakeSendbird) {
    let server = FakeSendbird()
    let environment = Dependencies.Environment(
      transport: server, monitor: ManualNetworkMonitor(.online), secureStore: InMemorySecureStore(),
      dataDirectory: directory, clock: TestClock(), now: { Date(timeIntervalSince1970: 1_000_000) },
      logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    return (environment, server)
  }

  @Test("wired(configuration:environment:) runs every service on the fakes it is given, each built once")
  func wiredOnFakes() async throws {
    let (environment, server) = fakes(directory: try temporaryDirectory())
    let dependencies = Dependencies.wired(
      configuration: KeelConfiguration(sendbirdBaseURL: URL(string: "https://sendbird.test")!),
      environment: environment)
    #expect(dependencies.users === dependencies.users)
    #expect(dependencies.sessions === dependencies.sessions)
    #expect(try dependencies.images === dependencies.images)

    try dependencies.users.initApplication(applicationId: "app", apiToken: "token")
    _ = try await dependencies.users.createUser(params: UserCreationParams(userId: "alice", nickname: "A"))
    #expect(server.sent.map(\.path) == ["/v3/users"])
    #expect(dependencies.sessions.state == .loggedOut)
    #expect(try dependencies.images.statistics.networkLoads == 0)
  }

  @Test(
    "Events need an API token and somewhere to go; with both, the tracker delivers over the environment's transport")
  func events() async throws {
    let ingestion = FakeIngestion()
    var (environment, _) = fakes(directory: try temporaryDirectory())
    environment.transport = ingestion
    let backend = URL(string: "https://chat.test")!
    for configuration in [KeelConfiguration(backendBaseURL: backend), KeelConfiguration(eventsAPIToken: "token")] {
      let without = Dependencies.wired(configuration: configuration, environment: environment)
      let error = #expect(throws: EventTrackerError.self) { _ = try without.events }
      #expect(error?.kind == .invalidConfiguration)
    }

    let dependencies = Dependencies.wired(
      configuration: KeelConfiguration(backendBaseURL: backend, eventsAPIToken: "token"), environment: environment)
    let tracker = try dependencies.events
    #expect(try dependencies.events === tracker)
    try await tracker.track(AnalyticsEvent(name: "opened"))
    await tracker.flush()
    #expect(ingestion.uploaded == ["opened"])
    await tracker.shutDown()
  }

  /// A product's settings and service, as a module above Domain adds them.
  struct Greeting: ProductConfiguration {
    var word = "hello"
  }

  final class Greeter: ProductService {
    let word: String
    let stops = Locked(0)
    init(word: String) { self.word = word }
    func shutDown() async { stops.withLock { $0 += 1 } }
  }

  @Test("A product above Domain keeps its settings in the configuration and its service among the others, stopped too")
  func products() async throws {
    var configuration = KeelConfiguration()
    #expect(configuration[product: Greeting.self].word == "hello", "the product's defaults until set")
    configuration[product: Greeting.self].word = "hi"
    let dependencies = Dependencies.wired(
      configuration: configuration, environment: fakes(directory: try temporaryDirectory()).0)

    struct Refused: Error {}
    var builds = 0
    #expect(throws: Refused.self) {
      try dependencies.product(Greeter.self) { _ in
        builds += 1
        throw Refused()
      }
    }
    let greeter = try dependencies.product(Greeter.self) { dependencies in
      builds += 1
      return Greeter(word: dependencies.configuration[product: Greeting.self].word)
    }
    #expect(greeter.word == "hi" && builds == 2, "a failed build is tried again")
    #expect(try dependencies.product(Greeter.self) { _ in Greeter(word: "other") } === greeter, "built once, shared")
    #expect(try dependencies.folder("greetings").lastPathComponent == "greetings")

    await dependencies.shutDown()
    #expect(greeter.stops.withLock { $0 } == 1)
  }

  @Test("What an earlier run left is delivered at launch, though the app never touches the tracker (E3)")
  func leftoversAtLaunch() async throws {
    let directory = try temporaryDirectory()
    let leftover = try DurableQueue<AnalyticsEvent>(
      url: directory.appendingPathComponent("events.sqlite"), capacity: 10, overflow: .rejectNew)
    try await leftover.enqueue(AnalyticsEvent(name: "left by a killed run"))
    var (environment, _) = fakes(directory: directory)
    let ingestion = FakeIngestion()
    environment.transport = ingestion
    let dependencies = Dependencies.wired(
      configuration: KeelConfiguration(backendBaseURL: URL(string: "https://chat.test")!, eventsAPIToken: "token"),
      environment: environment)
    #expect(await eventually { ingestion.uploaded == ["left by a killed run"] })
    await dependencies.shutDown()
  }

  @Test("A tracker that delivers only when asked (a command-line tool) is not started at launch")
  func noLaunchWithoutAutomaticDelivery() async throws {
    let directory = try temporaryDirectory()
    let leftover = try DurableQueue<AnalyticsEvent>(
      url: directory.appendingPathComponent("events.sqlite"), capacity: 10, overflow: .rejectNew)
    try await leftover.enqueue(AnalyticsEvent(name: "kept for a flush"))
    var (environment, _) = fakes(directory: directory)
    let ingestion = FakeIngestion()
    environment.transport = ingestion
    var configuration = KeelConfiguration(backendBaseURL: URL(string: "https://chat.test")!, eventsAPIToken: "token")
    configuration.events.deliversOnItsOwn = false
    let dependencies = Dependencies.wired(configuration: configuration, environment: environment)
    await settle()
    #expect(ingestion.uploads.isEmpty)
    await dependencies.shutDown()
  }

  @Test("No backend is configured by default: signing in fails before anything is sent, rather than reach localhost")
  func noDefaultBackend() async throws {
    let (environment, server) = fakes(directory: nil)
    let dependencies = Dependencies.wired(configuration: KeelConfiguration(), environment: environment)
    #expect(dependencies.sessions.baseURL == nil)
    let login = await #expect(throws: SessionError.self) {
      _ = try await dependencies.sessions.login(email: "a@example.com", password: "secret")
    }
    #expect(login?.kind == .notConfigured)
    #expect(login?.description.contains("KeelConfiguration.backendBaseURL") == true)
    let me = await #expect(throws: SessionError.self) { _ = try await dependencies.sessions.me() }
    #expect(me?.kind == .notConfigured)
    #expect(server.sent.isEmpty)
  }

  @Test("The configuration reaches the services: the users' rate and queue, the Sendbird base URL")
  func configurationReachesServices() async throws {
    let (environment, server) = fakes(directory: nil)
    let configuration = KeelConfiguration(
      sendbirdBaseURL: URL(string: "https://proxy.test/sb")!, usersQueueCapacity: 1)
    let users = Dependencies.wired(configuration: configuration, environment: environment).users
    try users.initApplication(applicationId: "app", apiToken: "token")
    #expect(users.application?.baseURL.absoluteString == "https://proxy.test/sb")
    _ = try await users.createUser(params: UserCreationParams(userId: "a", nickname: "A"))
    // A bucket of 1 still holds the request admitted at this instant: the next one is refused at once.
    let refused = await #expect(throws: UserManagerError.self) {
      _ = try await users.createUser(params: UserCreationParams(userId: "b", nickname: "B"))
    }
    #expect(refused?.requestFailure?.kind == .rateLimited)
    #expect(server.sent.count == 1)
  }

  @Test("live(configuration:) keeps its files under the data directory")
  func liveFiles() throws {
    let directory = try temporaryDirectory()
    let dependencies = Dependencies.live(configuration: KeelConfiguration(dataDirectory: directory))
    try dependencies.users.initApplication(applicationId: "app", apiToken: "token")
    dependencies.users.store.upsert(User(userId: "alice"))
    _ = try dependencies.images
    let files = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    #expect(files.isSuperset(of: ["users.json", "images"]))
    #if !canImport(Security)
      #expect(files.contains("secure"))
    #endif
  }

  @Test("live(configuration:) with a data directory it cannot create still works, in memory")
  func liveWithoutDirectory() async throws {
    let blocker = try temporaryDirectory().appendingPathComponent("file")
    try Data("not a directory".utf8).write(to: blocker)
    let dependencies = Dependencies.live(
      configuration: KeelConfiguration(dataDirectory: blocker.appendingPathComponent("keel")))
    try dependencies.users.initApplication(applicationId: "app", apiToken: "token")
    dependencies.users.store.upsert(User(userId: "alice"))
    #expect(try await dependencies.users.getUser(userId: "alice").userId == "alice")
    #expect(dependencies.environment.dataDirectory == nil)
  }

  @Test("Without a data directory the image cache and event queue use a 0700 scratch folder, gone with its owner")
  func scratchRemoved() async throws {
    let blocker = try temporaryDirectory().appendingPathComponent("file")
    try Data("not a directory".utf8).write(to: blocker)
    var dependencies: Dependencies? = Dependencies.live(
      configuration: KeelConfiguration(
        backendBaseURL: URL(string: "https://chat.test")!, dataDirectory: blocker.appendingPathComponent("keel"),
        eventsAPIToken: "t"))
    let images = try #require(try dependencies?.images.cache.disk.directory)
    let scratch = images.deletingLastPathComponent()
    #expect(scratch.lastPathComponent.hasPrefix("keel-"))
    let tracker = try #require(try dependencies?.events)
    let mode = try FileManager.default.attributesOfItem(atPath: scratch.path)[.posixPermissions] as? Int
    #expect(mode == 0o700)
    #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("events/events.sqlite").path))
    await tracker.shutDown()
    dependencies = nil
    #expect(!FileManager.default.fileExists(atPath: scratch.path), "the scratch folder is removed")
  }

  @Test("A damaged token store is set aside and started afresh, so sessions still survive restarts")
  func damagedSecureStore() throws {
    #if !canImport(Security)
      let directory = try temporaryDirectory()
      let secure = directory.appendingPathComponent("secure", isDirectory: true)
      try FileManager.default.createDirectory(at: secure, withIntermediateDirectories: true)
      _ = try EncryptedFileSecureStore(directory: secure)
      // The key is lost while sealed data stays: the store cannot open.
      for name in try FileManager.default.contentsOfDirectory(atPath: secure.path) where name.contains("key") {
        try FileManager.default.removeItem(at: secure.appendingPathComponent(name))
      }
      try Data("sealed".utf8).write(to: secure.appendingPathComponent("secrets.sealed"))
      let dependencies = Dependencies.live(configuration: KeelConfiguration(dataDirectory: directory))
      try dependencies.environment.secureStore.set(Data("t".utf8), forKey: "k")
      #expect(try EncryptedFileSecureStore(directory: secure).data(forKey: "k") == Data("t".utf8))
      let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      #expect(names.contains { $0.hasPrefix("secure.damaged-") })
    #endif
  }

  @Test("Only the composition root names concrete transports, stores and clocks (acceptance 3)")
  func onlyLiveChoosesConcreteTypes() throws {
    let domain = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Modules/Domain")
    let concrete = [
      "URLSessionTransport(", "FileKeyValueStore(", "UserDefaultsKeyValueStore(", "EncryptedFileSecureStore(",
      "KeychainSecureStore(", "InMemorySecureStore(", "InMemoryKeyValueStore(", "ContinuousClock(", "SuspendingClock(",
      "PathNetworkMonitor(", "InferredNetworkMonitor(", "MonitoredTransport(", "ManualNetworkMonitor(",
    ]
    var offenders: [String] = []
    let files = try #require(FileManager.default.enumerator(at: domain, includingPropertiesForKeys: nil))
    var checked = 0
    for case let file as URL in files where file.pathExtension == "swift" {
      checked += 1
      guard file.lastPathComponent != "Dependencies.swift" else { continue }
      let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
      for line in code where concrete.contains(where: line.contains) {
        offenders.append("\(file.lastPathComponent): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(checked > 20, "the Domain sources were found")
    #expect(offenders.isEmpty, "concrete collaborators chosen outside Dependencies.live: \(offenders)")
  }
}
