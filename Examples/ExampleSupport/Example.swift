import Foundation
import Sandbox

/// What was wrong, in one sentence: the example prints it and exits with status 1.
public struct ExampleFailure: Error, CustomStringConvertible {
  /// The sentence.
  public let description: String

  /// A failure saying `description`.
  public init(_ description: String) { self.description = description }
}

/// Prints one step of the walk-through and what came of it, on one line.
public func step(_ title: String, _ result: String) {
  print("  \(title) → \(result)")
}

/// Goes on when `condition` holds; otherwise ends the walk-through with `sentence`.
public func check(_ condition: Bool, _ sentence: @autoclosure () -> String) throws {
  guard condition else { throw ExampleFailure(sentence()) }
}

/// `value`, when there is one; otherwise ends the walk-through with `sentence`.
public func required<Value>(_ value: Value?, _ sentence: @autoclosure () -> String) throws -> Value {
  guard let value else { throw ExampleFailure(sentence()) }
  return value
}

/// Starts an embedded Sandbox, or ends the example with status 1 if it cannot.
public func startSandbox(_ configuration: SandboxConfiguration) async -> RunningSandbox {
  do {
    let sandbox = try await Sandbox.start(configuration)
    print("Sandbox listening at \(sandbox.baseURL)")
    return sandbox
  } catch {
    print("FAILED: the Sandbox did not start: \(error)")
    exit(1)
  }
}

/// `duration` for people: `35 µs`, `4.2 ms`, `1.3 s`.
public func readable(_ duration: Duration) -> String {
  let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  switch seconds {
  case ..<0.001: return String(format: "%.0f µs", seconds * 1_000_000)
  case ..<1: return String(format: "%.1f ms", seconds * 1_000)
  default: return String(format: "%.1f s", seconds)
  }
}

/// Ends the example: status 0 when every outcome was right, else one sentence saying what was wrong and status 1.
public func finish(_ failure: (any Error)?, since start: ContinuousClock.Instant) -> Never {
  switch failure {
  case nil:
    print("Every outcome was as expected, in \(readable(start.duration(to: .now))).")
    exit(0)
  case let failure as ExampleFailure:
    print("FAILED: \(failure)")
  case let error?:
    print("FAILED with an unexpected error: \(error)")
  }
  exit(1)
}
