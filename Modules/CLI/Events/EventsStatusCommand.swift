import ArgumentParser
import Domain
import Foundation

/// `keel events status [--dead-letters]`: what the queue holds.
struct EventsStatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Show how many events wait in the durable queue, and those set aside.")

  @Flag(help: "List the events the server refused and that were set aside, with its reasons.")
  var deadLetters = false

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run(sends: false) { context in
      let recorded = RecordedDeliveryFailure.read(in: context.options.dataDirectory)
      let status = try await context.withEvents { tracker in
        let capacity = tracker.configuration.deadLetterCapacity
        var status = QueueStatus(await tracker.loadedStatus, capacity: capacity, recordedFailure: recorded)
        if deadLetters { status.deadLetters = try await tracker.deadLetters(limit: capacity).map(DeadLetterLine.init) }
        return status
      }
      let lines = [status.statusLine] + (status.deadLetters ?? []).map(\.line)
      try context.output.result(status, human: lines.joined(separator: "\n"))
      // A full set-aside store loses the next refused event: a script checking the queue must hear of it.
      if status.isSetAsideStoreFull {
        throw CommandFailure(
          .localStorage, status.fullStoreSentence(lost: status.deadLettersDropped), followsResult: true)
      }
    }
  }
}
