// swift-tools-version: 6.1
import PackageDescription

// MARK: - Shared settings

/// `KEEL_STRICT=1` (set by `make ci`) turns warnings into errors in Keel's own targets, not in its dependencies.
/// Off by default, so that a package depending on Keel never meets an unsafe flag.
let strict = Context.environment["KEEL_STRICT"] == "1"

/// Applied to every target, so the whole package reads and checks the same way.
let swiftSettings: [SwiftSetting] =
  [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
  ] + (strict ? [.unsafeFlags(["-warnings-as-errors"])] : [])

// MARK: - Dependencies used by more than one target

/// The trait that brings the server-side products' packages: SwiftNIO, AsyncHTTPClient, swift-websocket, Hummingbird,
/// PostgresNIO, swift-service-lifecycle, ArgumentParser (Documentation/Decisions/0009). On by default, so that this
/// repository builds, tests and runs everything with no flag; an app that depends on Keel with `traits: []` resolves
/// none of them. Every use of such a package below goes through `serverSide`, and none of them is used otherwise.
let serverTrait = "Server"

/// A product of a server-side package, used only when the `Server` trait is on.
func serverSide(_ name: String, _ package: String) -> Target.Dependency {
  .product(name: name, package: package, condition: .when(traits: [serverTrait]))
}

let dequeModule: Target.Dependency = .product(name: "DequeModule", package: "swift-collections")
let concurrency: Target.Dependency = "KeelConcurrency"
let files: Target.Dependency = "KeelFiles"
let json: Target.Dependency = "KeelJSON"
let random: Target.Dependency = "KeelRandom"
let errors: Target.Dependency = "KeelErrors"
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let clocks: Target.Dependency = .product(name: "Clocks", package: "swift-clocks")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let sqlite: Target.Dependency = .product(name: "GRDBSQLite", package: "GRDB.swift")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
/// RSA, for the Sandbox's stand-ins for Apple's and Kakao's identity-token keys.
let cryptoExtras: Target.Dependency = .product(name: "CryptoExtras", package: "swift-crypto")
let customDump: Target.Dependency = .product(name: "CustomDump", package: "swift-custom-dump")

let hummingbird = serverSide("Hummingbird", "hummingbird")
let hummingbirdCore = serverSide("HummingbirdCore", "hummingbird")
let hummingbirdWebSocket = serverSide("HummingbirdWebSocket", "hummingbird-websocket")
let httpTypes = serverSide("HTTPTypes", "swift-http-types")
let nioCore = serverSide("NIOCore", "swift-nio")
let nioPosix = serverSide("NIOPosix", "swift-nio")
let nioHTTP1 = serverSide("NIOHTTP1", "swift-nio")
let nioWebSocket = serverSide("NIOWebSocket", "swift-nio")
let nioFoundationCompat = serverSide("NIOFoundationCompat", "swift-nio")
let nioSSL = serverSide("NIOSSL", "swift-nio-ssl")
let nioHTTPCompression = serverSide("NIOHTTPCompression", "swift-nio-extras")
let asyncHTTPClient = serverSide("AsyncHTTPClient", "async-http-client")
let wsClient = serverSide("WSClient", "swift-websocket")
let wsCore = serverSide("WSCore", "swift-websocket")
let postgresNIO = serverSide("PostgresNIO", "postgres-nio")
let argumentParser = serverSide("ArgumentParser", "swift-argument-parser")
let unixSignals = serverSide("UnixSignals", "swift-service-lifecycle")
let serviceLifecycle = serverSide("ServiceLifecycle", "swift-service-lifecycle")

let issueReporting: Target.Dependency = .product(name: "IssueReporting", package: "xctest-dynamic-overlay")
/// Lets IssueReporting find Swift Testing at run time, so that a TestStore failure fails the test it happens in.
let issueReportingTestSupport: Target.Dependency = .product(
  name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay")

let package = Package(
  name: "Keel",
  platforms: [.iOS(.v18), .macOS(.v15), .tvOS(.v18), .watchOS(.v11)],
  products: [
    .library(name: "RateLimiting", targets: ["RateLimiting"]),
    .library(name: "Networking", targets: ["Networking"]),
    .library(name: "Persistence", targets: ["Persistence"]),
    .library(name: "Realtime", targets: ["Realtime"]),
    .library(name: "Domain", targets: ["Domain"]),
    .library(name: "Chat", targets: ["Chat"]),
    .library(name: "ReducerRuntime", targets: ["ReducerRuntime"]),
    .library(name: "Features", targets: ["Features"]),
    .library(name: "FeaturesTesting", targets: ["FeaturesTesting"]),
    .library(name: "KeelUI", targets: ["KeelUI"]),
    .library(name: "NIOTransports", targets: ["NIOTransports"]),
    .library(name: "PostgresLimits", targets: ["PostgresLimits"]),
    .library(name: "Sandbox", targets: ["Sandbox"]),
    .executable(name: "keel", targets: ["KeelCLI"]),
    .executable(name: "keel-bench", targets: ["KeelBenchmarks"]),
  ],
  traits: [
    .trait(
      name: serverTrait,
      description: "The server-side products' packages: NIOTransports, PostgresLimits, Sandbox and the keel CLI."),
    .default(enabledTraits: [serverTrait]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // Traits off: the Sandbox needs neither swift-configuration nor the full-Foundation extras.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    // The NIO transports (their own product): HTTP on AsyncHTTPClient, WebSocket on swift-websocket's WSClient.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    // Named for the error types and decompression limits the NIO transports map; both come with AsyncHTTPClient.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    // The PostgreSQL limiter store (its own product): the user-manager limit shared across processes and machines.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
  ],
  targets: [
    // MARK: - Modules

    // Package-internal building blocks, one theme each, as swift-nio's small modules are; none is a product.
    // Locks (Documentation/Decisions/0003), one-shot values, signals, a broadcast, a paced buffer, async turns.
    .target(name: "KeelConcurrency", path: "Modules/KeelConcurrency", swiftSettings: swiftSettings),
    // Owner-only files and directories, a lock file, the partial and chunked files transfers stream through.
    .target(name: "KeelFiles", path: "Modules/KeelFiles", swiftSettings: swiftSettings),
    // JSONValue and the literals it shares with Socket.IO's value: public, as Domain's analytics API and Realtime's
    // values show them (both re-export it).
    .target(name: "KeelJSON", path: "Modules/KeelJSON", swiftSettings: swiftSettings),
    // Numbers a run reproduces: the SplitMix64 generator and the FNV-1a hash of text that seeds it.
    .target(name: "KeelRandom", path: "Modules/KeelRandom", swiftSettings: swiftSettings),
    // What every error type shares: ErrorKind, what each one's Kind is (public; re-exported by each module that
    // throws), and the way a sentence goes inside another.
    .target(name: "KeelErrors", path: "Modules/KeelErrors", swiftSettings: swiftSettings),

    .target(
      name: "RateLimiting",
      dependencies: [dequeModule, concurrency, errors],
      path: "Modules/RateLimiting",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "RateLimitingTests",
      dependencies: ["RateLimiting", "TestSupport", clocks, random],
      path: "Tests/RateLimitingTests",
      swiftSettings: swiftSettings
    ),

    .target(
      name: "Networking",
      dependencies: ["RateLimiting", logging, concurrency, errors, files],
      path: "Modules/Networking",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "NetworkingTests",
      dependencies: ["Networking", "TestSupport", clocks, concurrency],
      path: "Tests/NetworkingTests",
      swiftSettings: swiftSettings
    ),

    // HTTP and WebSocket on SwiftNIO, for Linux and servers: a product of its own, so that an app that links
    // Networking (URLSession) links no NIO (Documentation/Decisions/0011).
    .target(
      name: "NIOTransports",
      dependencies: [
        "Networking", asyncHTTPClient, wsClient, wsCore, nioCore, nioPosix, nioHTTP1, nioWebSocket, nioFoundationCompat,
        nioSSL, nioHTTPCompression, httpTypes, logging, concurrency, files,
      ],
      path: "Modules/NIOTransports",
      swiftSettings: swiftSettings
    ),
    // Both transports' HTTP, file and WebSocket paths against a Sandbox on 127.0.0.1 (the unit tests of Networking
    // need no network; these do).
    .testTarget(
      name: "TransportsTests",
      dependencies: [
        "NIOTransports", "Networking", "Sandbox", "TestSupport", nioCore, logging, concurrency, random, crypto,
      ],
      path: "Tests/TransportsTests",
      swiftSettings: swiftSettings
    ),

    // A rate limit shared by every process and machine, kept in PostgreSQL: a product of its own, so that an app links
    // no database driver (Documentation/Decisions/0016).
    .target(
      name: "PostgresLimits",
      dependencies: ["RateLimiting", postgresNIO, nioSSL, logging],
      path: "Modules/PostgresLimits",
      swiftSettings: swiftSettings
    ),
    // Against a real PostgreSQL server: the one .ci/run starts (KEEL_TEST_POSTGRES), or one the tests start.
    .testTarget(
      name: "PostgresLimitsTests",
      dependencies: ["PostgresLimits", "RateLimiting", "TestSupport", postgresNIO, logging],
      path: "Tests/PostgresLimitsTests",
      swiftSettings: swiftSettings
    ),

    // A Socket.IO client on Networking's WebSocketTransport: no NIO here; the transport comes from the app
    // (Documentation/Decisions/0012).
    .target(
      name: "Realtime",
      dependencies: ["Networking", logging, concurrency, errors, json],
      path: "Modules/Realtime",
      swiftSettings: swiftSettings
    ),
    // The codec, heartbeat and backoff on a TestClock and a scripted WebSocket; the client against the Sandbox and
    // python-socketio over real WebSockets.
    .testTarget(
      name: "RealtimeTests",
      dependencies: [
        "Realtime", "Networking", "NIOTransports", "Sandbox", "TestSupport", clocks, logging, concurrency,
      ],
      path: "Tests/RealtimeTests",
      swiftSettings: swiftSettings
    ),

    // Storage: usable alone. GRDB for the durable queue (system SQLite: libsqlite3-dev on Linux), swift-crypto for the
    // encrypted secure store off Apple platforms.
    .target(
      name: "Persistence",
      dependencies: [grdb, sqlite, crypto, concurrency, errors, files],
      path: "Modules/Persistence",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "PersistenceTests",
      dependencies: ["Persistence", files, "TestSupport", "CrashFixtures", clocks, "PersistenceCrashHelper", random],
      path: "Tests/PersistenceTests",
      swiftSettings: swiftSettings
    ),
    // A child process for the crash tests: it writes until the test kills it with SIGKILL.
    .executableTarget(
      name: "PersistenceCrashHelper",
      dependencies: ["Persistence", "CrashFixtures"],
      path: "Tests/PersistenceCrashHelper",
      swiftSettings: swiftSettings
    ),

    // The services an app uses: users (with the Sendbird-compatible facade), sessions, events, images, and the
    // composition root that wires them from the three modules below. No Socket.IO: that is the chat's.
    .target(
      name: "Domain",
      dependencies: ["Networking", "RateLimiting", "Persistence", logging, concurrency, errors, files, json],
      path: "Modules/Domain",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "DomainTests",
      dependencies: [
        "Domain", "Networking", "Persistence", "RateLimiting", "TestSupport", clocks, logging, concurrency, json,
        random,
      ],
      path: "Tests/DomainTests",
      swiftSettings: swiftSettings
    ),

    // The chat as a product of its own: its entities, its store (SQLite through GRDB, on Persistence's file pieces),
    // sync, outbox and realtime connection, on Domain's sessions and Realtime's Socket.IO client.
    .target(
      name: "Chat",
      dependencies: [
        "Domain", "Realtime", "Networking", "Persistence", grdb, sqlite, crypto, logging, concurrency, errors, files,
        json,
      ],
      path: "Modules/Chat",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "ChatTests",
      dependencies: ["Chat", "Domain", "Networking", "Persistence", "TestSupport", clocks, grdb, logging, concurrency],
      path: "Tests/ChatTests",
      swiftSettings: swiftSettings
    ),

    // A reducer runtime on Swift concurrency alone (no Combine, no SwiftUI): Reducer, Effect, Store, composition. It
    // imports no Keel library (KeelConcurrency aside), so an app that only wants a Store links nothing else of Keel's.
    .target(
      name: "ReducerRuntime",
      dependencies: [logging, concurrency],
      path: "Modules/ReducerRuntime",
      swiftSettings: swiftSettings
    ),
    // TestStore: exhaustive assertions with readable diffs, reported through Swift Testing or XCTest.
    .target(
      name: "FeaturesTesting",
      dependencies: ["ReducerRuntime", clocks, customDump, issueReporting, issueReportingTestSupport],
      path: "Modules/FeaturesTesting",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "ReducerRuntimeTests",
      dependencies: ["ReducerRuntime", "FeaturesTesting", "TestSupport", clocks],
      path: "Tests/ReducerRuntimeTests",
      swiftSettings: swiftSettings
    ),

    // The SwiftUI helpers (a store's bindings, the socket's scene-phase modifier), apart from the runtime and Realtime
    // so that neither imports SwiftUI; what orders the scene-phase changes is plain Swift, built and tested on Linux.
    .target(
      name: "KeelUI",
      dependencies: ["ReducerRuntime", "Realtime", concurrency],
      path: "Modules/KeelUI",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "KeelUITests",
      dependencies: ["KeelUI", concurrency],
      path: "Tests/KeelUITests",
      swiftSettings: swiftSettings
    ),

    // The app's features, built on the runtime, Domain and the chat.
    .target(
      name: "Features",
      dependencies: ["ReducerRuntime", "Domain", "Chat", "Networking", concurrency],
      path: "Modules/Features",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FeaturesTests",
      dependencies: [
        "Features", "FeaturesTesting", "Domain", "Chat", "Networking", "Persistence", "RateLimiting", "TestSupport",
        clocks,
        concurrency,
      ],
      path: "Tests/FeaturesTests",
      swiftSettings: swiftSettings
    ),

    // MARK: - Integration tests (real HTTP against a Sandbox on 127.0.0.1)

    .testTarget(
      name: "IntegrationTests",
      dependencies: [
        "Networking", "NIOTransports", "Persistence", "RateLimiting", "Realtime", "Domain", "Chat", "Features",
        "Sandbox",
        "TestSupport", logging, clocks, "DomainCrashHelper", "CrashFixtures", concurrency, random, crypto, cryptoExtras,
        "ExampleSupport",
      ],
      path: "Tests/IntegrationTests",
      swiftSettings: swiftSettings
    ),
    // A child process for the event tracker's and the chat outbox's crash tests: it tracks or sends until the test
    // kills it (SIGKILL).
    .executableTarget(
      name: "DomainCrashHelper",
      dependencies: ["Domain", "Chat", "Networking", "Persistence", "CrashFixtures"],
      path: "Tests/DomainCrashHelper",
      swiftSettings: swiftSettings
    ),

    // MARK: - Sandbox (a real local server; no library module imports it)

    .target(
      name: "Sandbox",
      dependencies: [
        "Realtime", "Networking", hummingbird, hummingbirdCore, hummingbirdWebSocket, httpTypes, nioCore, nioHTTP1,
        serviceLifecycle,
        logging, crypto, cryptoExtras, concurrency, files, json, random,
      ],
      path: "Modules/Sandbox",
      // The console's page, served as it is: no build step.
      resources: [.copy("Console/console.html"), .copy("Console/console.css"), .copy("Console/console.js")],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "SandboxTests",
      dependencies: ["Sandbox", "TestSupport", logging, clocks, random, "LoopbackSockets"],
      path: "Tests/SandboxTests",
      swiftSettings: swiftSettings
    ),

    // MARK: - The keel CLI

    .executableTarget(
      name: "KeelCLI",
      dependencies: [
        "Domain", "Chat", "Features", "Networking", "NIOTransports", "PostgresLimits", "Persistence", "RateLimiting",
        "Realtime", "Sandbox", argumentParser, logging, unixSignals, concurrency, errors, files, json, random,
      ],
      path: "Modules/CLI",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "KeelCLI", "Sandbox", "TestSupport", "Domain", "Persistence", crypto, logging, concurrency, "LoopbackSockets",
      ],
      path: "Tests/CLITests",
      swiftSettings: swiftSettings
    ),

    // MARK: - Examples (each an executable on an embedded Sandbox; `make examples` runs them all)

    // What every example shares: printing steps, checking outcomes, starting the Sandbox, waiting on a stream.
    .target(
      name: "ExampleSupport",
      dependencies: ["Sandbox", "Features", "Chat", "Domain", "Networking", "NIOTransports", concurrency, logging],
      path: "Examples/ExampleSupport",
      swiftSettings: swiftSettings
    ),

    .executableTarget(
      name: "UserManagerExample",
      dependencies: ["ExampleSupport", "Domain", "Networking", "NIOTransports", "Sandbox", logging],
      path: "Examples/UserManagerExample",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "TokenRefreshExample",
      dependencies: ["ExampleSupport", "Domain", "Networking", "NIOTransports", "Persistence", "Sandbox", logging],
      path: "Examples/TokenRefreshExample",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "EventTrackingExample",
      dependencies: ["ExampleSupport", "Domain", "Networking", "NIOTransports", "Sandbox", logging],
      path: "Examples/EventTrackingExample",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "ImageCacheExample",
      dependencies: ["ExampleSupport", "Domain", "Networking", "NIOTransports", "Sandbox", logging],
      path: "Examples/ImageCacheExample",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "ChatExample",
      dependencies: [
        "ExampleSupport", "Domain", "Chat", "Features", "Networking", "NIOTransports", "Persistence", "Sandbox",
        logging, concurrency, files,
      ],
      path: "Examples/ChatExample",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "UserSearchFeatureExample",
      dependencies: ["ExampleSupport", "Features", "Domain", "Networking", "NIOTransports", "Sandbox", logging],
      path: "Examples/UserSearchFeatureExample",
      swiftSettings: swiftSettings
    ),

    // MARK: - Test support

    .target(
      name: "TestSupport",
      dependencies: [
        clocks, logging, "Networking", "FeaturesTesting", "LocalPostgres", concurrency, "LoopbackSockets", grdb,
        "WholeDirectoryEntries",
      ],
      path: "Tests/TestSupport",
      swiftSettings: swiftSettings
    ),

    // A raw TCP socket to 127.0.0.1, for the tests, the fuzz harness and the load generator that speak bytes. No
    // Swift Testing, so that keel-bench and the fuzz harness can link it.
    .target(name: "LoopbackSockets", path: "Tests/LoopbackSockets", swiftSettings: swiftSettings),

    // readdir(3) for the test binary: each entry from a whole `struct dirent`, so that Foundation's Process.run() in
    // Swift 6.3, which copies more of an entry than glibc hands out, cannot read past glibc's buffer (the source says
    // why). Linked into every test through TestSupport; nothing calls it by name.
    .target(name: "WholeDirectoryEntries", path: "Tests/WholeDirectoryEntries", linkerSettings: [.linkedLibrary("dl")]),

    // A PostgreSQL server for the shared limiter's tests and keel-bench rows: the one .ci/run started, or a cluster
    // of its own. No Swift Testing, so that keel-bench can link it.
    .target(
      name: "LocalPostgres",
      dependencies: [concurrency],
      path: "Tests/LocalPostgres",
      swiftSettings: swiftSettings
    ),

    // What a crash test's child and its parent must agree on (payloads, event ids); no Swift Testing, so the
    // children can link it.
    .target(
      name: "CrashFixtures",
      path: "Tests/CrashFixtures",
      swiftSettings: swiftSettings
    ),

    // MARK: - Fuzzing (`make fuzz`: libFuzzer through -sanitize=fuzzer; a plain build replays saved inputs)

    .executableTarget(
      name: "KeelFuzz",
      dependencies: ["Domain", "Networking", "Realtime", "Sandbox", logging, "LoopbackSockets"],
      path: "Fuzz/KeelFuzz",
      swiftSettings: swiftSettings
    ),

    // MARK: - Benchmarks

    .executableTarget(
      name: "KeelBenchmarks",
      dependencies: [
        "RateLimiting", "Networking", "NIOTransports", "Persistence", "Domain", "Chat", "Features", "Realtime",
        "Sandbox",
        "PostgresLimits", "LocalPostgres", hummingbird,
        nioCore, nioPosix, nioHTTP1, nioWebSocket, nioFoundationCompat, nioHTTPCompression, asyncHTTPClient, wsClient,
        grdb, logging, concurrency, random, "LoopbackSockets",
      ],
      path: "Benchmarks/KeelBenchmarks",
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
