import Foundation

/// The exit codes of `keel`, one per kind of failure, so that scripts can tell them apart (sysexits.h numbers).
enum ExitStatus: Int32, CaseIterable, Sendable {
  /// Everything worked.
  case success = 0
  /// Something else failed, such as a step of `keel demo`.
  case failure = 1
  /// A flag or argument is wrong (ArgumentParser's own code for validation errors).
  case usage = 64
  /// Input data is wrong: a bad CSV row, 11 users in one `create`, an empty nickname. Nothing was sent.
  case invalidInput = 65
  /// An input file is missing or unreadable.
  case noInput = 66
  /// What the command names does not exist on the server: no such user or image (sysexits' "addressee unknown").
  case notFound = 67
  /// The server could not be reached, or did not answer in time.
  case network = 69
  /// The server refused the request or answered something unreadable.
  case server = 70
  /// A local file (the data directory) could not be read or written.
  case localStorage = 74
  /// The client-side rate limit refused the request; nothing was sent. Try again later.
  case rateLimited = 75
  /// Not signed in, a wrong password, the session expired, or a call the server refused this user (not the owner).
  case auth = 77
  /// Stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
  case interrupted = 130

  /// The name used in JSON output, such as `invalidInput`.
  var name: String { "\(self)" }

  /// One line per code, for `keel --help`.
  static var table: String {
    allCases.map { "  " + "\($0.rawValue)".padding(toLength: 4, withPad: " ", startingAt: 0) + $0.summary }
      .joined(separator: "\n")
  }

  private var summary: String {
    switch self {
    case .success: "success"
    case .failure: "a step of the demo, or anything else, failed"
    case .usage: "usage: a flag or argument is wrong"
    case .invalidInput: "invalid input (a bad CSV row, 11 users in one create, an empty nickname)"
    case .noInput: "an input file is missing or unreadable"
    case .notFound: "not found: the server has no such user or image"
    case .network: "network: the server could not be reached"
    case .server: "server: the server refused the request"
    case .localStorage: "local storage: the data directory could not be read or written"
    case .rateLimited: "rate limited: the client-side limit refused the request; try later"
    case .auth: "auth: not signed in, wrong password, the session expired, or not yours to do"
    case .interrupted: "stopped by Ctrl-C"
    }
  }
}
