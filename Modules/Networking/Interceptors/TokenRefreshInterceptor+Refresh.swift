import Foundation
import KeelConcurrency
import KeelErrors
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The one refresh in flight.
extension TokenRefreshInterceptor {
  typealias Outcome = Result<A.Credential, any Error>

  struct State {
    var credential: A.Credential?
    /// Bumped by every new credential, so a caller can tell whether it was replaced since it looked.
    var generation = 0
    /// Why the session ended (a refresh failed, or the loop guard tripped), once it was reported; requests fail with
    /// it until the next credential.
    var ending: NetworkError?
    var refresh: Refresh?
    var nextWaiter = 0
    /// When recent refreshes that succeeded had started, for the loop guard. A refresh that failed in passing (no
    /// network, a 503) does not count: it says nothing about a server that refuses fresh credentials.
    var refreshStarts: [Duration] = []
  }

  struct Refresh {
    let generation: Int
    let started: Duration
    var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
  }

  enum Step {
    case answer(Outcome)
    case wait(start: A.Credential?)
    /// The loop guard tripped: the session ended now.
    case ended(NetworkError)
  }

  /// The credential that replaces the one of `generation`: at once if it was already replaced, otherwise after the
  /// refresh in flight, started now if there is none. Cancelling the calling task stops its wait, not the refresh.
  func refreshed(from generation: Int) async -> Outcome {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
        let step = state.withLock { state in self.step(&state, waiter: id, generation: generation, continuation) }
        switch step {
        case .answer(let outcome): continuation.resume(returning: outcome)
        case .wait(let start?): Task { await self.run(refreshing: start, generation: generation) }
        case .wait(nil): break
        case .ended(let error):
          report(error)
          continuation.resume(returning: .failure(error))
        }
      }
    } onCancel: {
      let waiter = state.withLock { $0.refresh?.waiters.removeValue(forKey: id) }
      waiter?.resume(returning: .failure(CancellationError()))
    }
  }

  func step(
    _ state: inout State, waiter id: Int, generation: Int, _ continuation: CheckedContinuation<Outcome, Never>
  ) -> Step {
    if Task.isCancelled {
      return .answer(.failure(CancellationError()))
    }
    guard let credential = state.credential else { return .answer(.failure(state.ending ?? noCredential())) }
    if state.refresh == nil {
      if state.generation != generation { return .answer(.success(credential)) }
      let start = now()
      state.refreshStarts.removeAll { start - $0 >= refreshWindow }
      if state.refreshStarts.count >= maxRefreshes {
        let error = NetworkError(
          .sessionExpired,
          "The session ended: the credential was refreshed \(maxRefreshes) times within \(refreshWindow) and the "
            + "server still refuses it. Sign in again.")
        return endSession(&state, error) ? .ended(error) : .answer(.failure(error))
      }
      state.refresh = Refresh(generation: state.generation, started: start, waiters: [id: continuation])
      return .wait(start: credential)
    }
    state.refresh?.waiters[id] = continuation
    return .wait(start: nil)
  }

  func run(refreshing credential: A.Credential, generation: Int) async {
    logger.info("Refreshing the credential.")
    let outcome: Outcome
    var endsSession = false
    do {
      outcome = .success(try await authenticator.refresh(credential))
    } catch {
      endsSession = authenticator.refreshFailureEndsSession(error)
      outcome = .failure(Self.refreshFailure(error, endsSession: endsSession))
    }
    let (waiters, answer, reportsEnd) = state.withLock {
      state -> ([CheckedContinuation<Outcome, Never>], Outcome, Bool) in
      // A sign-in or sign-out while refreshing answered this refresh's waiters and wins over its result.
      guard state.generation == generation, let refresh = state.refresh, refresh.generation == generation else {
        return ([], outcome, false)
      }
      state.refresh = nil
      let waiters = Array(refresh.waiters.values)
      switch outcome {
      case .success(let fresh):
        state.credential = fresh
        state.generation += 1
        state.refreshStarts.append(refresh.started)
        return (waiters, outcome, false)
      case .failure(let error):
        guard endsSession, let error = error as? NetworkError else { return (waiters, outcome, false) }
        return (waiters, outcome, endSession(&state, error))
      }
    }
    if reportsEnd, case .failure(let error as NetworkError) = answer { report(error) }
    for waiter in waiters { waiter.resume(returning: answer) }
  }

  static func refreshFailure(_ error: any Error, endsSession: Bool) -> NetworkError {
    if !endsSession, let error = error as? NetworkError { return error }
    let reason = "\(error)".clause
    var failure =
      endsSession
      ? NetworkError(
        .sessionExpired, "The session expired: the credential could not be refreshed (\(reason)). Sign in again.")
      : NetworkError(.transport, "Refreshing the credential failed: \(reason).")
    failure.underlying = error
    failure.urlError = error as? URLError
    return failure
  }

  /// Clears the credential; `true` if the session was live, so that its end is reported once.
  func endSession(_ state: inout State, _ error: NetworkError) -> Bool {
    state.credential = nil
    state.generation += 1
    defer { state.ending = error }
    return state.ending == nil
  }

  func report(_ error: NetworkError) {
    logger.warning("\(error.description)")
    onSessionExpired(error)
  }
}
