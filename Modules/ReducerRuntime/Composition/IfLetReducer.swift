/// A parent reducer with an optional child (a sheet, a detail): the child runs first, on its state while there is one;
/// then the parent runs. Built by ``Reducer/ifLet(_:action:embed:child:)->IfLetReducer<Self,Child>``.
///
/// - An action for the child while its state is `nil` is ignored, with a warning in the log: a programming error.
/// - When the parent sets the child's state to `nil`, every effect the child started is cancelled: a dismissed
///   child's late answer never arrives.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  private let parent: Parent
  private let toChild: WritableKeyPath<Parent.State, Child.State?>
  private let extract: (Parent.Action) -> Child.Action?
  private let embed: @Sendable (Child.Action) -> Parent.Action
  private let child: Child
  private let effectsID: ChildEffectsID

  init(
    parent: Parent, toChild: WritableKeyPath<Parent.State, Child.State?>,
    extract: @escaping (Parent.Action) -> Child.Action?, embed: @escaping @Sendable (Child.Action) -> Parent.Action,
    child: Child
  ) {
    self.parent = parent
    self.toChild = toChild
    self.extract = extract
    self.embed = embed
    self.child = child
    effectsID = ChildEffectsID(place: toChild)
  }

  /// Runs the child for its actions, then the parent; cancels the child's effects when the parent dismissed it.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let childEffect = reduceChild(into: &state, action: action)
    let wasPresent = state[keyPath: toChild] != nil
    let parentEffect = parent.reduce(into: &state, action: action)
    guard wasPresent, state[keyPath: toChild] == nil else { return .merge(childEffect, parentEffect) }
    return .merge(childEffect, parentEffect, .cancel(id: effectsID))
  }

  private func reduceChild(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard let childAction = extract(action) else { return .none }
    guard state[keyPath: toChild] != nil else {
      CompositionWarning.missingChild(childAction, in: "\(Parent.self).ifLet(\(Child.self))")
      return .none
    }
    let effect = child.reduce(into: &state[keyPath: toChild]!, action: childAction)
    if case .none = effect.operation { return .none }
    return effect.map(embed).cancellable(id: effectsID)
  }
}
