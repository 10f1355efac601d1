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

let dequeModule: Target.Dependency = .product(name: "DequeModule", package: "swift-collections")
let locking: Target.Dependency = "Locking"
let clocks: Target.Dependency = .product(name: "Clocks", package: "swift-clocks")

let package = Package(
  name: "Keel",
  platforms: [.iOS(.v18), .macOS(.v15), .tvOS(.v18), .watchOS(.v11)],
  products: [
    .library(name: "RateLimiting", targets: ["RateLimiting"]),
    .executable(name: "keel-bench", targets: ["KeelBenchmarks"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
  ],
  targets: [
    // MARK: - Modules

    // Package-internal building blocks every module may use; not a product (Documentation/Decisions/0003).
    .target(
      name: "Locking",
      path: "Modules/Locking",
      swiftSettings: swiftSettings
    ),

    .target(
      name: "RateLimiting",
      dependencies: [dequeModule, locking],
      path: "Modules/RateLimiting",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "RateLimitingTests",
      dependencies: ["RateLimiting", "TestSupport", clocks],
      path: "Tests/RateLimitingTests",
      swiftSettings: swiftSettings
    ),

    // MARK: - Test support

    .target(
      name: "TestSupport",
      dependencies: [clocks, locking],
      path: "Tests/TestSupport",
      swiftSettings: swiftSettings
    ),

    // MARK: - Benchmarks

    .executableTarget(
      name: "KeelBenchmarks",
      dependencies: ["RateLimiting"],
      path: "Benchmarks/KeelBenchmarks",
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
