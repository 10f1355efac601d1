import Domain
import Foundation
import Sandbox

/// The demo's steps, run one after another against one set of services and one Sandbox.
struct Demo {
  /// How much each step does.
  enum Size {
    case quick, full

    var users: Int { self == .quick ? 5 : 10 }
    var events: Int { self == .quick ? 20 : 50 }
  }

  /// What a step showed.
  struct Outcome: Encodable {
    let step: String
    let passed: Bool
    let detail: String
    let seconds: Double
  }

  /// Ctrl-C: the demo stops where it is.
  struct Interrupted: Error {}

  /// A step's outcome was not the expected one.
  struct Wrong: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  let dependencies: Dependencies
  /// The other user's services, for the chat step.
  let peer: Dependencies
  /// Where the demo's files go (removed at the end).
  let directory: URL
  let control: SandboxControl
  let output: Output
  let size: Size
  /// What makes this run's user ids and nicknames its own, so that the demo runs again on the same Sandbox.
  let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)

  /// Runs every step, whatever happens to the others, and returns their outcomes in order.
  func run() async -> [Outcome] {
    let steps: [(String, () async throws -> String)] = [
      ("Create \(size.users) users under the one-request-per-second limit", createUsers),
      ("Send a batch of 11 users: refused before anything is sent", refuseElevenUsers),
      ("Search by nickname", search),
      ("Sign in, expire the access token, and let 10 concurrent calls share one refresh", refreshOnce),
      ("Track \(size.events) events while the server fails 30% of uploads: each delivered once", trackThroughFailures),
      ("Load an image from the network, then memory, then disk", loadImage),
      (
        "Chat between two users while one's socket is dropped: every message once, in order; then changes, live",
        chatThroughDrop
      ),
    ]
    var outcomes: [Outcome] = []
    for (number, (title, step)) in steps.enumerated() {
      output.line("\(number + 1). \(title)")
      let started = ContinuousClock.now
      let result: Result<String, any Error>
      do { result = .success(try await step()) } catch { result = .failure(error) }
      if case .failure(let error) = result, error is Interrupted {
        output.line("   ✘ stopped by Ctrl-C")
        outcomes.append(Outcome(step: title, passed: false, detail: "stopped by Ctrl-C", seconds: 0))
        return outcomes
      }
      let seconds = started.duration(to: .now).inSeconds
      switch result {
      case .success(let detail):
        output.line("   ✔ \(detail) (\(String(format: "%.1f", seconds)) s)")
        outcomes.append(Outcome(step: title, passed: true, detail: detail, seconds: seconds))
      case .failure(let error):
        let detail = (error as? Wrong)?.description ?? CommandFailure.from(error).description
        output.line("   ✘ \(detail)")
        outcomes.append(Outcome(step: title, passed: false, detail: detail, seconds: seconds))
      }
    }
    return outcomes
  }

  /// Every check of a step goes through here: a wrong outcome fails the step with `message`.
  func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    guard condition else { throw Wrong(message()) }
  }

  /// The users the demo creates.
  var demoUsers: [UserCreationParams] {
    (1...size.users).map { UserCreationParams(userId: "demo-\(run)-\($0)", nickname: "Demo User \($0) (\(run))") }
  }

  /// The user manager, on the Sandbox's application.
  func users() throws -> UserManager {
    let users = dependencies.users
    try users.initApplication(applicationId: Target.sandboxApplicationID, apiToken: Target.sandboxAPIToken)
    return users
  }
}
