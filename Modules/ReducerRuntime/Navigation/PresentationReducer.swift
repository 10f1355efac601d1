/// A parent reducer with a presented child (a sheet, an alert, a confirmation dialog): the child runs first on its
/// state while there is one, then the parent. Built by the `ifLet`s that take a ``PresentationAction``.
///
/// - ``PresentationAction/dismiss`` reaches the parent with the child's state still there, then the state goes.
/// - A child that returns ``Effect/dismiss`` sends ``PresentationAction/dismiss`` to itself through the parent.
/// - Whenever the child's state becomes `nil` (dismissed, or set so by the parent), every effect the child started
///   is cancelled.
/// - An alert or a dialog (no child reducer) is dismissed after the parent handled any of its buttons' actions, unless
///   the parent showed another in its place.
/// - An action for the child while its state is `nil` reaches neither the child nor the parent (a second tap on an
///   alert's button that is already gone does nothing), with a warning in the log; a dismissal then reaches the parent
///   and changes nothing else (a view may send one as the sheet closes).
public struct PresentationReducer<Parent: Reducer, ChildState, ChildAction: Sendable>: Reducer {
  private let parent: Parent
  private let toChild: WritableKeyPath<Parent.State, ChildState?>
  private let extract: (Parent.Action) -> PresentationAction<ChildAction>?
  private let embed: @Sendable (PresentationAction<ChildAction>) -> Parent.Action
  /// The child's reducer; `nil` for an alert or a dialog, which is dismissed by any of its actions.
  private let child: Reduce<ChildState, ChildAction>?
  /// For an alert or a dialog: whether two are the same, to tell the one a button belonged to from one the parent
  /// showed in its place.
  private let isSame: ((ChildState, ChildState) -> Bool)?
  private let effectsID: ChildEffectsID

  init(
    parent: Parent, toChild: WritableKeyPath<Parent.State, ChildState?>,
    extract: @escaping (Parent.Action) -> PresentationAction<ChildAction>?,
    embed: @escaping @Sendable (PresentationAction<ChildAction>) -> Parent.Action,
    child: Reduce<ChildState, ChildAction>?, isSame: ((ChildState, ChildState) -> Bool)? = nil
  ) {
    self.parent = parent
    self.toChild = toChild
    self.extract = extract
    self.embed = embed
    self.child = child
    self.isSame = isSame
    effectsID = ChildEffectsID(place: toChild)
  }

  /// Runs the child for its actions, then the parent; dismisses as asked, and cancels a gone child's effects.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let presentation = extract(action)
    if case .presented(let childAction)? = presentation, state[keyPath: toChild] == nil {
      CompositionWarning.missingChild(childAction, in: "\(Parent.self).ifLet(\(ChildState.self))")
      return .none
    }
    let childEffect = presentation.map { reduceChild(into: &state, action: $0) } ?? .none
    let shown = state[keyPath: toChild]
    let wasPresent = shown != nil
    let parentEffect = parent.reduce(into: &state, action: action)
    switch presentation {
    case .dismiss?:
      state[keyPath: toChild] = nil
    case .presented? where child == nil:
      // The dialog a button belonged to goes; one the parent showed in its place stays.
      if let shown, let now = state[keyPath: toChild], let isSame, isSame(shown, now) { state[keyPath: toChild] = nil }
    case .presented?, nil:
      break
    }
    guard wasPresent, state[keyPath: toChild] == nil else { return .merge(childEffect, parentEffect) }
    return .merge(childEffect, parentEffect, .cancel(id: effectsID))
  }

  private func reduceChild(
    into state: inout Parent.State, action: PresentationAction<ChildAction>
  ) -> Effect<Parent.Action> {
    guard case .presented(let childAction) = action, let child else { return .none }
    let effect = child.reduce(into: &state[keyPath: toChild]!, action: childAction)
    if case .none = effect.operation { return .none }
    let embed = embed
    return effect.map { embed(.presented($0)) }.replacingDismiss(with: .send(embed(.dismiss)))
      .cancellable(id: effectsID)
  }
}
