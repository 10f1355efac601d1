import KeelBasics

/// A value built on first use, once, whoever asks first: how ``Dependencies`` builds each service only when the app
/// uses it.
final class Lazy<Value: Sendable>: Sendable {
  private let state = Locked<Value?>(nil)
  private let make: @Sendable () -> Value

  init(_ make: @escaping @Sendable () -> Value) {
    self.make = make
  }

  /// The value, built now if nobody built it before. `make` runs under the lock, so it must not ask for this value.
  var value: Value {
    state.withLock { value in
      if let value { return value }
      let made = make()
      value = made
      return made
    }
  }
}
