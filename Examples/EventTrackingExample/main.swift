/// Tracking analytics events with `EventTracker` while the server fails about 30% of the uploads. `track` returns as
/// soon as an event is on disk; the tracker uploads in batches, retries every refused upload with backoff, and the
/// server, which deduplicates by event id, ends up holding every event exactly once. An embedded Sandbox stands in
/// for the ingestion API, with a fault that answers 503 to 30% of `POST /v1/events/batch` (seeded: the same
/// sequence of refusals on every run).
import Domain
import ExampleSupport
import Foundation
import Logging
import NIOTransports
import Sandbox

let start = ContinuousClock.now
let fault = SandboxFault(route: "/v1/events/batch", status: 503, rate: 0.3, seed: 30)
let sandbox = await startSandbox(SandboxConfiguration(faults: [fault], logLevel: .warning))
let control = sandbox.control
let dataDirectory = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-event-tracking-example-\(UUID().uuidString)", isDirectory: true)
let apiToken = "example-events-token"
let eventCount = 200

var failure: (any Error)?
do {
  // Batches of 20 and short retry delays, so that the retries through the faults take milliseconds rather than the
  // defaults' seconds. The refused uploads are logged at warning; this example counts them instead, so it logs
  // errors only.
  let configuration = KeelConfiguration(
    backendBaseURL: sandbox.baseURL, dataDirectory: dataDirectory, eventsAPIToken: apiToken,
    events: EventTrackerConfiguration(
      maxBatchCount: 20, flushInterval: .milliseconds(200), baseRetryDelay: .milliseconds(50),
      maxRetryDelay: .milliseconds(500)),
    logLevel: .error, transport: NIOHTTPTransport())
  let dependencies = Dependencies.live(configuration: configuration)
  let tracker = try dependencies.events
  step("SandboxFault", "POST /v1/events/batch answers 503 to \(Int(fault.rate * 100))% of uploads")

  var tracked: [AnalyticsEvent] = []
  for number in 1...eventCount {
    let event = AnalyticsEvent(
      name: "screen_view", properties: ["screen": "feed", "position": .number(Double(number))])
    try await tracker.track(event)
    tracked.append(event)
  }
  let afterTracking = tracker.status
  step(
    "track(\(eventCount) events)",
    "every one on disk; \(afterTracking.delivered) delivered so far, \(afterTracking.pending) pending")

  // flush() returns once nothing more can go now: a refused batch waits for its retry date. The status stream says
  // when everything has gone.
  await tracker.flush()
  let delivered = await first(of: tracker.deliveryStatus, within: .seconds(15)) { $0.pending == 0 }
  let status = tracker.status
  step(
    "flush()",
    "pending \(status.pending), delivered \(status.delivered), duplicates \(status.duplicates), "
      + "dead-lettered \(status.deadLettered), dropped \(status.dropped)")
  try check(delivered != nil, "\(status.pending) events were still pending after 15 seconds.")
  try check(status.delivered == eventCount, "The tracker delivered \(status.delivered) of \(eventCount) events.")
  try check(status.deadLettered == 0 && status.dropped == 0, "Events were given up on: \(status).")

  let stats = try await control.statistics()
  let refused = stats.responses("POST /v1/events/batch", status: 503)
  let accepted = stats.responses("POST /v1/events/batch", status: 200)
  step("uploads", "\(accepted + refused) in all: \(accepted) accepted, \(refused) refused with 503 and retried")
  try check(refused > 0, "No upload was refused, so the fault was not in force.")

  let uniques = stats.counter("eventUniques")
  let duplicates = stats.counter("eventDuplicates")
  step("GET /_sandbox/stats", "\(uniques) unique events stored, \(duplicates) duplicates received")
  try check(uniques == eventCount, "The server stored \(uniques) unique events, not \(eventCount).")
  try check(
    duplicates == status.duplicates, "The server saw \(duplicates) duplicates, the tracker \(status.duplicates).")

  let stored = try await control.storedEventIds(apiToken: apiToken)
  let sameEvents = Set(stored) == Set(tracked.map(\.eventId))
  step(
    "GET /v1/events",
    "\(stored.count) events stored, \(sameEvents ? "exactly the ones tracked" : "not the ones tracked")")
  try check(stored.count == eventCount && sameEvents, "The server does not hold each tracked event exactly once.")

  await tracker.shutDown()
} catch {
  failure = error
}

await sandbox.stop()
try? FileManager.default.removeItem(at: dataDirectory)
finish(failure, since: start)
