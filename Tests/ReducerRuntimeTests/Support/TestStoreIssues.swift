import Synchronization
import Testing

/// The messages of the issues `body` records, each one accepted as a known issue; at least one must be recorded.
/// For the tests of the TestStore's own failure reporting.
@MainActor
func issuesRecorded(by body: () async -> Void) async -> [String] {
  let log = IssueLog()
  await withKnownIssue {
    await body()
  } matching: { issue in
    log.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
    return true
  }
  return log.messages
}

/// Issue messages, appended to from the known-issue matcher (which may run on any thread).
private final class IssueLog: Sendable {
  private let storage = Mutex<[String]>([])

  func append(_ message: String) {
    storage.withLock { $0.append(message) }
  }

  var messages: [String] { storage.withLock { $0 } }
}

extension String {
  /// The lines of the message, without their leading spaces: a diff's lines start with their marker.
  var strippedLines: [Substring] {
    split(separator: "\n").map { $0.drop { $0 == " " } }
  }
}
