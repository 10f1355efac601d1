import Clocks
import Foundation
import KeelConcurrency
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An in-memory stand-in for the Platform API's `/v3/users`, for the user manager's unit tests: it keeps users,
/// answers like Sendbird (`400202` exists, `400201` not found), records every request with the test clock's time,
/// and can hold requests at a gate or fail chosen user ids.
final class FakeSendbird: HTTPTransport {
  struct Sent: Sendable {
    let method: String
    let path: String
    let query: String?
    let apiToken: String?
    let body: [String: String]
    let milliseconds: Int64
  }

  private struct State {
    var users: [String: [String: String]] = [:]
    var order: [String] = []
    var sent: [Sent] = []
    var failing: [String: (status: Int, code: Int)] = [:]
  }

  private let state = Locked(State())
  private let clock: TestClock<Duration>?
  private let start: TestClock<Duration>.Instant?
  /// Every request waits here before it is answered; open by default.
  let gate = Gate()

  init(clock: TestClock<Duration>? = nil) {
    self.clock = clock
    start = clock?.now
  }

  /// The requests received so far, in order.
  var sent: [Sent] { state.withLock { $0.sent } }

  /// Makes every request about `userId` fail with `status` and the Sendbird error `code`.
  func fail(_ userId: String, status: Int = 500, code: Int = 500901) {
    state.withLock { $0.failing[userId] = (status, code) }
  }

  /// Stores a user as if it had been created earlier.
  func seed(_ userId: String, nickname: String) {
    state.withLock {
      $0.users[userId] = ["user_id": userId, "nickname": nickname, "profile_url": ""]
      $0.order.append(userId)
    }
  }

  func send(_ request: URLRequest) async throws -> RawResponse {
    let url = try #require(request.url)
    let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    let body =
      (request.httpBody.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any])?
      .compactMapValues { $0 as? String } ?? [:]
    let record = Sent(
      method: request.httpMethod ?? "GET", path: components?.percentEncodedPath ?? "", query: components?.query,
      apiToken: request.value(forHTTPHeaderField: "Api-Token"), body: body,
      milliseconds: clock.flatMap { clock in start.map { clock.milliseconds(since: $0) } } ?? 0)
    state.withLock { $0.sent.append(record) }
    await gate.pass()
    return answer(record, components: components)
  }

  private func answer(_ request: Sent, components: URLComponents?) -> RawResponse {
    // From `v3` on, whatever prefix the base URL has.
    let segments = request.path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
      .drop { $0 != "v3" }.map { $0 }
    return state.withLock { state in
      let userId = segments.count == 3 ? segments[2] : request.body["user_id"]
      if let userId, let failure = state.failing[userId] {
        return Self.error(failure.status, failure.code, "Injected fault (\(failure.status)).")
      }
      switch (request.method, segments.count) {
      case ("POST", 2):
        guard let userId else { return Self.error(400, 400105, "user_id is required") }
        guard state.users[userId] == nil else {
          return Self.error(400, 400202, "\"User\" violated a unique constraint.")
        }
        let user = [
          "user_id": userId, "nickname": request.body["nickname"] ?? "",
          "profile_url": request.body["profile_url"] ?? "",
        ]
        state.users[userId] = user
        state.order.append(userId)
        return Self.json(user)
      case ("PUT", 3):
        guard let userId, var user = state.users[userId] else { return Self.error(400, 400201, "\"User\" not found.") }
        for (key, value) in request.body { user[key] = value }
        state.users[userId] = user
        return Self.json(user)
      case ("GET", 3):
        guard let userId, let user = state.users[userId] else { return Self.error(400, 400201, "\"User\" not found.") }
        return Self.json(user)
      case ("GET", 2):
        let nickname = components?.queryItems?.first { $0.name == "nickname" }?.value
        let users = state.order.compactMap { state.users[$0] }.filter { $0["nickname"] == nickname }
        let body = try? JSONSerialization.data(withJSONObject: ["users": users, "next": ""])
        return RawResponse(status: 200, headers: ["Content-Type": "application/json"], body: body ?? Data())
      default:
        return Self.error(404, 400404, "unknown route")
      }
    }
  }

  private static func json(_ object: [String: String]) -> RawResponse {
    let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    return RawResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
  }

  private static func error(_ status: Int, _ code: Int, _ message: String) -> RawResponse {
    let object: [String: Any] = ["error": true, "code": code, "message": message]
    let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    return RawResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
  }
}
