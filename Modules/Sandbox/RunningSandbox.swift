import Foundation
import ServiceLifecycle

/// A Sandbox that is accepting connections.
public final class RunningSandbox: Sendable {
  /// Where it listens, for example `http://127.0.0.1:54321`.
  public let baseURL: URL
  /// The port it is bound to.
  public let port: Int
  /// The key its control plane requires (``SandboxConfiguration/controlKey``, else its access key), which
  /// ``control`` presents.
  let controlKey: String?

  private let group: ServiceGroup
  private let task: Task<Void, any Error>

  init(host: String, port: Int, controlKey: String?, group: ServiceGroup, task: Task<Void, any Error>) {
    self.port = port
    self.controlKey = controlKey
    // An IPv6 literal needs brackets in a URL (http://[::1]:8080).
    let authority = host.contains(":") ? "[\(host)]" : host
    self.baseURL = URL(string: "http://\(authority):\(port)") ?? URL(string: "http://127.0.0.1:\(port)")!
    self.group = group
    self.task = task
  }

  /// Stops accepting connections, lets requests in flight finish, and returns once the server has stopped.
  public func stop() async {
    await group.triggerGracefulShutdown()
    _ = await task.result
  }
}
