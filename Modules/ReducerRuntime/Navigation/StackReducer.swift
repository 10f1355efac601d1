/// A parent reducer with a navigation stack: a destination's action runs that destination first, then the parent;
/// the view's pops and pushes happen after the parent saw them. Built by the `forEach` that takes a ``StackState``.
///
/// - Each destination's effects come back as ``StackAction/element(id:action:)`` with its id, and their cancellation
///   ids are the destination's own: two screens of one kind never cancel each other's work.
/// - A destination that returns ``Effect/dismiss`` pops itself (and every destination above it), through
///   ``StackAction/popFrom(id:)``.
/// - When a destination leaves the stack, however it left (popped by the view, by itself, or by the parent emptying
///   the stack), every effect it started is cancelled: a popped screen's late answer never arrives.
/// - An action for a destination that is not on the stack is ignored, with a warning in the log; a pop of one is
///   ignored quietly (a view may send one as the screen goes).
///
/// Telling which destinations left compares the ids before and after: a cost linear in the stack's depth.
public struct StackReducer<Parent: Reducer, Destination: Reducer>: Reducer where Destination.State: Sendable {
  private let parent: Parent
  private let toStack: WritableKeyPath<Parent.State, StackState<Destination.State>>
  private let extract: (Parent.Action) -> StackAction<Destination.State, Destination.Action>?
  private let embed: @Sendable (StackAction<Destination.State, Destination.Action>) -> Parent.Action
  private let destination: Destination

  init(
    parent: Parent, toStack: WritableKeyPath<Parent.State, StackState<Destination.State>>,
    extract: @escaping (Parent.Action) -> StackAction<Destination.State, Destination.Action>?,
    embed: @escaping @Sendable (StackAction<Destination.State, Destination.Action>) -> Parent.Action,
    destination: Destination
  ) {
    self.parent = parent
    self.toStack = toStack
    self.extract = extract
    self.embed = embed
    self.destination = destination
  }

  /// Runs the destination an action is for, then the parent; pops and pushes as the view asked; cancels the effects
  /// of every destination that left.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let stackAction = extract(action)
    var destinationEffect = Effect<Parent.Action>.none
    if case .element(let id, let elementAction)? = stackAction {
      destinationEffect = reduceDestination(id, elementAction, into: &state)
    }
    let before = state[keyPath: toStack].ids
    let parentEffect = parent.reduce(into: &state, action: action)
    switch stackAction {
    case .popFrom(let id)?:
      state[keyPath: toStack].pop(from: id)
    case .push(let id, let pushed)?:
      if !state[keyPath: toStack].isNew(id) {
        CompositionWarning.pushIgnored(id, in: "\(Parent.self).forEach(\(Destination.self))")
      } else {
        state[keyPath: toStack].push(pushed, id: id)
      }
    case .element?, nil:
      break
    }
    let departed = Effect<Parent.Action>.cancellingDeparted(
      from: before, to: state[keyPath: toStack].ids, effectsID)
    return .merge(destinationEffect, parentEffect, departed)
  }

  private func reduceDestination(
    _ id: StackElementID, _ action: Destination.Action, into state: inout Parent.State
  ) -> Effect<Parent.Action> {
    guard let index = state[keyPath: toStack].ids.firstIndex(of: id) else {
      CompositionWarning.missingChild(action, in: "\(Parent.self).forEach(\(Destination.self)) for id \(id)")
      return .none
    }
    let effect = destination.reduce(into: &state[keyPath: toStack][index], action: action)
    if case .none = effect.operation { return .none }
    let embed = embed
    let effectsID = effectsID(id)
    return effect.scopingCancelIDs(to: CancelID(effectsID)).map { embed(.element(id: id, action: $0)) }
      .replacingDismiss(with: .send(embed(.popFrom(id: id)))).cancellable(id: effectsID)
  }

  private func effectsID(_ id: StackElementID) -> ChildEffectsID { ChildEffectsID(place: toStack, element: id) }
}
