import Foundation
import KeelConcurrency
import Networking
import RateLimiting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Admits every attempt of a ``UsersRouter`` request through its application's limiter (REQUIREMENTS U8, L1).
///
/// The first attempt of a call that took its place in line earlier (the Sendbird facade reserves in call order)
/// waits on that place, found in ``reserved``; every other attempt, retries included, joins the line when it is made.
struct UsersRateLimit: RequestInterceptor {
  /// A place taken before the call was started, for its first request.
  @TaskLocal static var reserved: ReservedPlace?

  let limiters: UserManagerLimiters

  func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
    guard let router = context.endpoint as? UsersRouter else { return }
    do {
      if let place = Self.reserved?.take() {
        try await place.wait()
      } else if let remaining = context.remaining {
        try await limiters.limiter(for: router.application).acquire(cost: 1, maxWait: max(remaining, .zero))
      } else {
        try await limiters.limiter(for: router.application).acquire(cost: 1)
      }
    } catch let refusal as RateLimitError {
      throw RateLimitInterceptor.error(refusing: router, because: refusal)
    }
  }
}

/// A reservation handed to the first request of a call; taken once.
final class ReservedPlace: Sendable {
  private let place = Locked<(any RateLimitReservation)?>(nil)

  init(_ place: any RateLimitReservation) {
    self.place.withLock { $0 = place }
  }

  /// The reservation, the first time; `nil` after.
  func take() -> (any RateLimitReservation)? {
    place.withLock { place in
      defer { place = nil }
      return place
    }
  }

  /// Gives the place up if no request took it (the call was answered from the cache, or failed before sending).
  func release() { take()?.cancel() }
}
