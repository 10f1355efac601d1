import ArgumentParser
import Domain
import Foundation
import KeelErrors

/// `keel events flush`: delivers what the queue holds.
struct EventsFlushCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flush", abstract: "Deliver every stored event now; what cannot go yet stays stored.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      // An explicit flush sends every stored event now, whatever retry date an earlier failure set.
      let (status, reason, setAside) = try await context.withEvents { tracker in
        _ = await tracker.loadedStatus
        let report = await tracker.flush()
        var status = QueueStatus(report.status, capacity: tracker.configuration.deadLetterCapacity)
        status.delivered = report.delivered
        status.setAside = report.setAsideCount
        status.notKept = report.notKeptCount
        status.setAsideReasons = SetAsideReason.tally(report.setAside)
        return (status, report.status.lastFailure?.kind, report.setAsideCount)
      }
      RecordedDeliveryFailure.record(status.pending == 0 ? nil : status.lastError, in: context.options.dataDirectory)
      try context.output.result(status, human: status.flushLine)
      // Refused events that could not be kept are data lost: that comes first, whatever else happened.
      if let lost = status.notKept, lost > 0 {
        throw CommandFailure(.localStorage, status.fullStoreSentence(lost: lost), followsResult: true)
      }
      guard status.pending == 0 else {
        // No answer (offline, refused, dropped) is the network's fault; an answer that refused the upload is the
        // server's.
        let kind: ExitStatus = reason == nil || reason == .transport || !status.isOnline ? .network : .server
        throw CommandFailure(
          kind,
          "\(status.pending) event\(status.pending == 1 ? "" : "s") could not be delivered now\(status.lastError.map { " (\($0.clause))" } ?? ""); "
            + "they stay stored for the next flush."
            + (setAside > 0 ? " " + SetAsideReason.sentence(setAside, status.setAsideReasons ?? []) : ""),
          followsResult: true)
      }
      guard setAside == 0 else {
        throw CommandFailure(
          .server, SetAsideReason.sentence(setAside, status.setAsideReasons ?? []), followsResult: true)
      }
    }
  }
}

/// How many events a flush set aside for one reason.
struct SetAsideReason: Encodable, Equatable {
  let reason: String
  let count: Int

  /// The reasons of `events`, the most frequent first.
  static func tally(_ events: [SetAsideEvent]) -> [SetAsideReason] {
    var counts: [String: Int] = [:]
    var order: [String] = []
    for event in events {
      if counts[event.reason] == nil { order.append(event.reason) }
      counts[event.reason, default: 0] += 1
    }
    return order.map { SetAsideReason(reason: $0, count: counts[$0]!) }.sorted { $0.count > $1.count }
  }

  /// What a flush says of the `count` events it set aside.
  static func sentence(_ count: Int, _ reasons: [SetAsideReason]) -> String {
    let why = reasons.prefix(3).map { "\($0.count) × \($0.reason.clause)" }.joined(separator: "; ")
    return "\(count) event\(count == 1 ? " was" : "s were") refused by the server and set aside"
      + (why.isEmpty ? "" : " (\(why))")
      + "; `keel events status --dead-letters` lists them, `keel events requeue` puts them back."
  }
}
