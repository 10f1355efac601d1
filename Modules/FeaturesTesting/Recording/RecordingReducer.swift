import ReducerRuntime

/// Runs a feature's reducer for a ``TestStore`` and records every reduction, telling the actions the test sent from
/// those its effects sent: every effect's action comes back tagged as received, and every effect runs under
/// ``InFlightEffectsID``.
struct RecordingReducer<Feature: Reducer>: Reducer {
  let feature: Feature
  let recorder: Recorder<Feature.State, Feature.Action>

  func reduce(
    into state: inout Feature.State, action: TestStoreAction<Feature.Action>
  ) -> Effect<TestStoreAction<Feature.Action>> {
    switch action {
    case .cancelInFlightEffects:
      return .cancel(id: InFlightEffectsID())
    case .dismissed:
      recorder.isDismissed = true
      return .none
    case .sent(let sent):
      let before = state
      let effect = feature.reduce(into: &state, action: sent)
      recorder.sent = Reduction(action: sent, before: before, after: state)
      return Self.tagged(effect)
    case .received(let received):
      let before = state
      let effect = feature.reduce(into: &state, action: received)
      recorder.received.append(Reduction(action: received, before: before, after: state))
      return Self.tagged(effect)
    }
  }

  private static func tagged(_ effect: Effect<Feature.Action>) -> Effect<TestStoreAction<Feature.Action>> {
    effect.map { .received($0) }.replacingDismiss(with: .send(.dismissed)).cancellable(id: InFlightEffectsID())
  }
}
