/// One reduced action, with the state before and after it.
struct Reduction<State, Action> {
  var action: Action
  var before: State
  var after: State
}

/// What the ``TestStore``'s inner store reduced, by who sent it. Written by the recording reducer and read by the
/// test store, both on the main actor (the inner store reduces there); not `Sendable`, so it stays there.
final class Recorder<State, Action> {
  /// The reduction of the action the test sent last, until the test store has checked it.
  var sent: Reduction<State, Action>?
  /// The actions effects sent, oldest first, not yet received by the test.
  var received: [Reduction<State, Action>] = []
  /// Whether the feature asked to be dismissed.
  var isDismissed = false
}
