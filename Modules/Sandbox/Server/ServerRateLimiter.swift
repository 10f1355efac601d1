import Foundation
import HTTPTypes
import KeelConcurrency

/// The server-side rate limits of `/v3`: per tenant and per kind of route, one-second windows opened by the first
/// request after the previous window closed, as a free-trial Sendbird application enforces them, with a small
/// tolerance for jitter at a full window's end (``SandboxConfiguration/RateLimits/tolerance``).
struct ServerRateLimiter: Sendable {
  /// What a request is told about the limit it counted against.
  struct Decision: Sendable {
    let allowed: Bool
    let limit: Int
    let remaining: Int
    /// Until the window closes.
    let reset: Duration

    /// `X-RateLimit-*` on every `/v3` response; `Retry-After` too on a refusal.
    var headers: HTTPFields {
      let resetSeconds = Double(reset.components.seconds) + Double(reset.components.attoseconds) / 1e18
      let retryAfter = allowed ? 0 : resetSeconds
      var fields: HTTPFields = [
        Self.limitName: "\(limit);w=1",
        Self.remainingName: String(remaining),
        Self.resetName: String(Int(resetSeconds.rounded(.up))),
        Self.retryAfterName: String(format: "%.3f", retryAfter),
      ]
      if !allowed { fields[.retryAfter] = String(max(1, Int(retryAfter.rounded(.up)))) }
      return fields
    }

    // The names are valid header names; the force unwraps cannot fail.
    private static let limitName = HTTPField.Name("X-RateLimit-Limit")!
    private static let remainingName = HTTPField.Name("X-RateLimit-Remaining")!
    private static let resetName = HTTPField.Name("X-RateLimit-Reset")!
    private static let retryAfterName = HTTPField.Name("X-RateLimit-RetryAfter")!
  }

  private struct Key: Hashable {
    let tenant: String
    let method: HTTPRequest.Method
  }

  private struct Window {
    let start: Duration
    var used: Int
  }

  private let limits: SandboxConfiguration.RateLimits
  private let time: Timekeeper
  private let windows = Locked<[Key: Window]>([:])
  private static let length = Duration.seconds(1)

  init(limits: SandboxConfiguration.RateLimits, time: Timekeeper) {
    self.limits = limits
    self.time = time
  }

  /// Counts a request of `method` by `tenant`, unless its window is full.
  func admit(tenant: String, method: HTTPRequest.Method) -> Decision {
    let limit = limit(for: method)
    let key = Key(tenant: tenant, method: method)
    let now = time.now()
    return windows.withLock { windows in
      if windows.count > 10_000 { windows = windows.filter { now - $0.value.start < Self.length } }
      var window = windows[key].flatMap { now - $0.start < Self.length ? $0 : nil } ?? Window(start: now, used: 0)
      // A full window about to end: a request within the tolerance of its end opens the next window at the end's
      // nominal instant, so that a client spaced at the limit is not refused for its jitter, and the allowance cannot
      // add up from window to window.
      if window.used >= limit, Self.length - (now - window.start) <= limits.tolerance {
        window = Window(start: window.start + Self.length, used: 0)
      }
      let allowed = window.used < limit
      if allowed { window.used += 1 }
      windows[key] = window
      return Decision(
        allowed: allowed, limit: limit, remaining: limit - window.used, reset: Self.length - (now - window.start))
    }
  }

  /// Forgets every window.
  func reset() { windows.withLock { $0 = [:] } }

  private func limit(for method: HTTPRequest.Method) -> Int {
    switch method {
    case .post: limits.post
    case .put: limits.put
    case .delete: limits.delete
    default: limits.get
    }
  }
}
