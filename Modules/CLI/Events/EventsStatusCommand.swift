import ArgumentParser
import Domain
import Foundation
import KeelBasics

/// `keel events status [--dead-letters]`: what the queue holds.
struct EventsStatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Show how many events wait in the durable queue, and those set aside.")

  @Flag(help: "List the events the server refused and that were set aside, with its reasons (the oldest 1,000).")
  var deadLetters = false

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run(sends: false) { context in
      let recorded = RecordedDeliveryFailure.read(in: context.options.dataDirectory)
      let status = try await context.withEvents { tracker in
        var status = QueueStatus(await tracker.loadedStatus, recordedFailure: recorded)
        if deadLetters { status.deadLetters = try await tracker.deadLetters(limit: 1_000).map(DeadLetterLine.init) }
        return status
      }
      let lines = [status.statusLine] + (status.deadLetters ?? []).map(\.line)
      try context.output.result(status, human: lines.joined(separator: "\n"))
    }
  }
}
