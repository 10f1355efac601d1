import KeelConcurrency

/// A value built on first use, once, whoever asks first: how ``Dependencies`` builds each service only when the app
/// uses it. A build that throws leaves nothing behind, so the next use tries again.
final class Lazy<Value: Sendable, Failure: Error>: Sendable {
  private let state = Locked<Value?>(nil)
  private let make: @Sendable () throws(Failure) -> Value

  init(_ make: @escaping @Sendable () throws(Failure) -> Value) {
    self.make = make
  }

  /// The value, built now if nobody built it before. `make` runs under the lock, so it must not ask for this value.
  func value() throws(Failure) -> Value {
    let outcome = state.withLock { value -> Result<Value, Failure> in
      if let value { return .success(value) }
      let made = Result(catching: make)
      if case .success(let built) = made { value = built }
      return made
    }
    return try outcome.get()
  }

  /// The value if it was built, without building it.
  var built: Value? { state.withLock { $0 } }
}
