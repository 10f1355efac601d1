/// A parent reducer with a list of children, each found by its id (rows): a child's action runs the child whose id it
/// carries, first; then the parent runs. Built by ``Reducer/forEach(_:action:embed:element:)``.
///
/// - An action for an id that is not in the list is ignored, with a warning in the log: a programming error.
/// - Each child's effects come back embedded with its id, and their cancellation ids are the child's own: two rows
///   that debounce under the same id never cancel each other.
/// - When the parent removes a child from the list, every effect that child started is cancelled.
///
/// Telling which children were removed compares the ids before and after the parent ran: a cost linear in the length
/// of the list, on every action.
public struct ForEachReducer<Parent: Reducer, Element: Reducer>: Reducer
where Element.State: Identifiable, Element.State.ID: Sendable {
  private typealias ID = Element.State.ID

  private let parent: Parent
  private let toElements: WritableKeyPath<Parent.State, [Element.State]>
  private let extract: (Parent.Action) -> (Element.State.ID, Element.Action)?
  private let embed: @Sendable (Element.State.ID, Element.Action) -> Parent.Action
  private let element: Element

  init(
    parent: Parent, toElements: WritableKeyPath<Parent.State, [Element.State]>,
    extract: @escaping (Parent.Action) -> (Element.State.ID, Element.Action)?,
    embed: @escaping @Sendable (Element.State.ID, Element.Action) -> Parent.Action, element: Element
  ) {
    self.parent = parent
    self.toElements = toElements
    self.extract = extract
    self.embed = embed
    self.element = element
  }

  /// Runs the child an action is for, then the parent; cancels the effects of the children the parent removed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let elementEffect = reduceElement(into: &state, action: action)
    let before = state[keyPath: toElements].map(\.id)
    let parentEffect = parent.reduce(into: &state, action: action)
    let after = state[keyPath: toElements]
    let unchanged = before.count == after.count && zip(before, after).allSatisfy { $0 == $1.id }
    guard !unchanged else { return .merge(elementEffect, parentEffect) }
    return .merge(elementEffect, parentEffect, .cancellingDeparted(from: before, to: after.map(\.id), effectsID))
  }

  private func reduceElement(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard let (id, elementAction) = extract(action) else { return .none }
    guard let index = state[keyPath: toElements].firstIndex(where: { $0.id == id }) else {
      CompositionWarning.missingChild(elementAction, in: "\(Parent.self).forEach(\(Element.self)) for id \(id)")
      return .none
    }
    let effect = element.reduce(into: &state[keyPath: toElements][index], action: elementAction)
    if case .none = effect.operation { return .none }
    let embed = embed
    let effectsID = effectsID(id)
    return effect.scopingCancelIDs(to: CancelID(effectsID)).map { embed(id, $0) }.cancellable(id: effectsID)
  }

  private func effectsID(_ id: ID) -> ChildEffectsID { ChildEffectsID(place: toElements, element: id) }
}
