import IssueReporting
import Testing

// A stopgap until Package.swift links `IssueReportingTestSupport` (xctest-dynamic-overlay) into `FeaturesTesting`:
// without it, IssueReporting cannot find Swift Testing at run time and only prints the issues the TestStore reports.
// Remove this file, and the `.testStoreIssues` trait, once that dependency is in.

/// Records the issues IssueReporting reports as Swift Testing issues, at their source location.
struct SwiftTestingIssueReporter: IssueReporter {
  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString, filePath: StaticString,
    line: UInt, column: UInt
  ) {
    Issue.record(
      Comment(rawValue: message() ?? "An issue was reported"),
      sourceLocation: SourceLocation(
        fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
  }
}

/// Runs each test with IssueReporting forwarding to Swift Testing.
struct TestStoreIssuesTrait: SuiteTrait, TestTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withIssueReporters([SwiftTestingIssueReporter()]) {
      try await function()
    }
  }
}

extension Trait where Self == TestStoreIssuesTrait {
  /// IssueReporting's issues recorded as Swift Testing issues (see `TestStoreIssueReporter.swift`).
  static var testStoreIssues: Self { Self() }
}
