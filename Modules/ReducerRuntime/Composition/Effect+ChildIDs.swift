extension Effect {
  /// The same effect with every cancellation id it marks or cancels moved into `scope`: two children of one list
  /// that use the same id (a row's debounce) then never cancel each other's work.
  func scopingCancelIDs(to scope: CancelID) -> Effect {
    switch operation {
    case .none, .send, .run, .dismiss:
      self
    case .merge(let effects):
      Effect(operation: .merge(effects.map { $0.scopingCancelIDs(to: scope) }))
    case .cancellable(let id, let cancelInFlight, let inner):
      Effect(
        operation: .cancellable(
          id: CancelID(ScopedCancelID(scope: scope, id: id)), cancelInFlight: cancelInFlight,
          inner.scopingCancelIDs(to: scope)))
    case .cancel(let id):
      Effect(operation: .cancel(id: CancelID(ScopedCancelID(scope: scope, id: id))))
    }
  }
}

extension Effect {
  /// Cancels the effects of every child whose id is in `before` and not in `after`: the children a parent's reduction
  /// removed, from a list (`forEach`) or a navigation stack.
  static func cancellingDeparted<ID: Hashable>(
    from before: [ID], to after: [ID], _ effectsID: (ID) -> ChildEffectsID
  ) -> Effect {
    guard before != after else { return .none }
    let remaining = Set(after)
    return .merge(before.filter { !remaining.contains($0) }.map { .cancel(id: effectsID($0)) })
  }
}

/// A child's cancellation id inside the scope of one child.
private struct ScopedCancelID: Hashable, Sendable {
  let scope: CancelID
  let id: CancelID
}

/// The id under which every effect of one child runs, so that its parent can cancel them all when the child goes
/// away: the child's place (its key path) and, in a collection, its id.
struct ChildEffectsID: Hashable, @unchecked Sendable {  // Safe: see the first line below.
  // @unchecked: a key path is an immutable value; `element` wraps only a `Hashable & Sendable` value.
  private let place: AnyKeyPath
  private let element: AnyHashable?

  init(place: AnyKeyPath) {
    self.place = place
    element = nil
  }

  init(place: AnyKeyPath, element: some Hashable & Sendable) {
    self.place = place
    self.element = AnyHashable(element)
  }
}
