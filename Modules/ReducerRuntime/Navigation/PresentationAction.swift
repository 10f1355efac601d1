/// What can happen to a presented child (a sheet, an alert, a confirmation dialog): one of its own actions, or its
/// dismissal. A parent keeps the child's state as an optional (`nil` while nothing shows) and presents it with
/// the `ifLet` that takes a ``PresentationAction``.
///
/// - ``presented(_:)`` runs the child first, then the parent.
/// - ``dismiss``, sent by the view (a swipe that closes the sheet) or by the child itself (its reducer returns
///   ``Effect/dismiss``), reaches the parent while the child's state is still there, so that the parent can look at
///   it; then the runtime sets the state to `nil` and cancels the child's effects.
public enum PresentationAction<Action: Sendable>: Sendable {
  /// An action of the presented child.
  case presented(Action)
  /// The child goes away.
  case dismiss
}

extension PresentationAction: Equatable where Action: Equatable {}
