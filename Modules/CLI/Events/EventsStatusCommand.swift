import ArgumentParser
import Domain
import Foundation
import KeelBasics

/// `keel events status`: what the queue holds.
struct EventsStatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Show how many events wait in the durable queue.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run(sends: false) { context in
      let recorded = RecordedDeliveryFailure.read(in: context.options.dataDirectory)
      let status = try await context.withEvents { QueueStatus(await $0.loadedStatus, recordedFailure: recorded) }
      try context.output.result(status, human: status.statusLine)
    }
  }
}
