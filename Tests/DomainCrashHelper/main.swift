// A child process for the event tracker's crash test (REQUIREMENTS E2, E3): it tracks events while uploading them to
// a Sandbox until the test kills it with SIGKILL.
//
// `DomainCrashHelper <queue file> <base URL> <api token> <first> <end>` opens an EventTracker on the queue file, writes
// `ready`, then tracks the events numbered `first..<end`, one at a time, and after each `track` returns writes
// `tracked <n>` to standard output in one unbuffered write. Then it writes `done` and goes on uploading until it is
// killed, or exits after a minute so that a test that lost track of it leaves no process behind.
import CrashFixtures
import Domain
import Foundation
import Networking

/// Writes `line` to standard output at once: the parent reads it even if the next instant is a SIGKILL.
func report(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5, let baseURL = URL(string: arguments[1]), let first = Int(arguments[3]),
  let end = Int(arguments[4])
else {
  FileHandle.standardError.write(
    Data("usage: DomainCrashHelper <queue file> <base URL> <api token> <first> <end>\n".utf8))
  exit(64)
}
do {
  // The same short delays as the in-process tests: a killed upload is retried within milliseconds of the restart.
  let tracker = try EventTracker(
    baseURL: baseURL, apiToken: arguments[2], queueURL: URL(fileURLWithPath: arguments[0]),
    transport: URLSessionTransport(), monitor: ManualNetworkMonitor(.online),
    configuration: EventTrackerConfiguration(
      flushInterval: .milliseconds(100), baseRetryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200)),
    clock: ContinuousClock())
  report("ready")
  for number in first..<end {
    try await tracker.track(
      AnalyticsEvent(
        name: "event_\(number)", properties: ["number": .number(Double(number))], eventId: CrashFixtures.eventId(number)
      )
    )
    report("tracked \(number)")
  }
  report("done")
  try await Task.sleep(for: .seconds(60))
  await tracker.shutDown()
} catch {
  FileHandle.standardError.write(Data("DomainCrashHelper: \(error)\n".utf8))
  exit(1)
}
