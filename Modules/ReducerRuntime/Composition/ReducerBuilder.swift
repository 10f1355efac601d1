/// Lists the reducers of a ``CombineReducers``, in order: any reducer of the same `State` and `Action`, with `if`
/// and `for` as in any builder.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  /// A closure reducer: listed first, so that `Reduce { state, action in … }` infers its types from the builder.
  public static func buildExpression(_ reducer: Reduce<State, Action>) -> [Reduce<State, Action>] { [reducer] }

  /// Any reducer of the builder's state and action.
  public static func buildExpression<R: Reducer>(
    _ reducer: R
  ) -> [Reduce<State, Action>] where R.State == State, R.Action == Action {
    [Reduce(reducer)]
  }

  /// The reducers of a block, in order.
  public static func buildBlock(_ parts: [Reduce<State, Action>]...) -> [Reduce<State, Action>] {
    parts.flatMap { $0 }
  }

  /// The reducers of an `if` without `else`, when it holds.
  public static func buildOptional(_ part: [Reduce<State, Action>]?) -> [Reduce<State, Action>] { part ?? [] }

  /// The reducers of an `if`'s first branch.
  public static func buildEither(first part: [Reduce<State, Action>]) -> [Reduce<State, Action>] { part }

  /// The reducers of an `if`'s second branch.
  public static func buildEither(second part: [Reduce<State, Action>]) -> [Reduce<State, Action>] { part }

  /// The reducers of a `for` loop, in order.
  public static func buildArray(_ parts: [[Reduce<State, Action>]]) -> [Reduce<State, Action>] {
    parts.flatMap { $0 }
  }
}
