import IssueReporting

/// Where a test called the ``TestStore``: failures are reported there.
struct SourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// Records a test failure at this location, through Swift Testing or XCTest, whichever runs the test.
  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
