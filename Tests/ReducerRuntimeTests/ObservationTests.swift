import Observation
import Testing

@testable import ReducerRuntime

/// A parent with two slices, to tell a scoped store's own changes from its sibling's.
private struct Pair: Reducer {
  struct State: Equatable, Sendable {
    var left = 0
    var right = 0
  }

  enum Action: Sendable {
    case left(Int)
    case right(Int)
    case nothing
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .left(let value): state.left = value
    case .right(let value): state.right = value
    case .nothing: break
    }
    return .none
  }
}

/// A state the store cannot compare: every action is a change.
private struct Opaque: Reducer {
  struct State: Sendable { var value = 0 }
  enum Action: Sendable { case same }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

/// Counts the notifications of one `withObservationTracking` registration after another.
@MainActor
private final class Notifications {
  private(set) var count = 0

  /// Reads `read` under observation tracking; the next change adds one.
  func track(_ read: @escaping @MainActor () -> Void) {
    withObservationTracking {
      read()
    } onChange: { [weak self] in
      MainActor.assumeIsolated { self?.count += 1 }
    }
  }
}

@Suite("Store observation", .timeLimit(.minutes(10)))
@MainActor
struct ObservationTests {
  @Test("Reading state registers; a change notifies once; an action that leaves the state equal notifies nothing")
  func rootStore() {
    let store = Store(initialState: Pair.State(), reducer: Pair())
    let notifications = Notifications()

    notifications.track { _ = store.state }
    store.send(.nothing)
    #expect(notifications.count == 0, "an equal state is no change")
    store.send(.left(1))
    #expect(notifications.count == 1)
    store.send(.left(2))
    #expect(notifications.count == 1, "a registration hears of one change, as Observation promises")

    notifications.track { _ = store.state }
    store.send(.left(2))
    #expect(notifications.count == 1)
    store.send(.right(5))
    #expect(notifications.count == 2)
  }

  @Test("A reader of one field is told of that field's changes only, not of another field's")
  func perField() {
    let store = Store(initialState: Pair.State(), reducer: Pair())
    let left = Notifications()
    let whole = Notifications()

    left.track { _ = store.left }
    whole.track { _ = store.state }
    store.send(.right(1))
    #expect(left.count == 0, "a change of another field is not this reader's")
    #expect(whole.count == 1, "a reader of the whole state hears of every change")
    store.send(.left(1))
    #expect(left.count == 1)

    left.track { _ = store.left }
    store.send(.left(1))
    store.send(.right(2))
    #expect(left.count == 1, "an equal value and another field notify nothing")
    store.send(.left(2))
    #expect(left.count == 2)
    #expect(store.left == 2 && store.right == 2)
  }

  @Test("A field is compared on its own, even where the whole state cannot be")
  func perFieldOfOpaqueState() {
    let store = Store(initialState: Opaque.State(), reducer: Opaque())
    let value = Notifications()
    let whole = Notifications()
    value.track { _ = store.value }
    whole.track { _ = store.state }
    store.send(.same)
    #expect(whole.count == 1, "a state that cannot be compared changes on every action")
    #expect(value.count == 0, "its Int field did not change")
  }

  @Test("A scoped store notifies only when its own slice changes")
  func scopedStore() {
    let store = Store(initialState: Pair.State(), reducer: Pair())
    let left = store.scope(state: \.left, action: Pair.Action.left)
    let notifications = Notifications()

    notifications.track { _ = left.state }
    store.send(.right(1))
    store.send(.right(2))
    #expect(notifications.count == 0, "the sibling's changes are not this store's")
    left.send(3)
    #expect(notifications.count == 1)
    #expect(left.state == 3)
  }

  @Test("A state that cannot be compared notifies on every action; a store that is gone stops observing")
  func opaqueState() {
    let store = Store(initialState: Opaque.State(), reducer: Opaque())
    let notifications = Notifications()
    notifications.track { _ = store.state }
    store.send(.same)
    #expect(notifications.count == 1)

    let parent = Store(initialState: Pair.State(), reducer: Pair())
    #expect(parent.core.observerCount == 0, "a store nobody has read announces nothing: no observer per send")
    _ = parent.state
    #expect(parent.core.observerCount == 1, "read once, it listens for the changes to announce")
    for value in 0..<100 { _ = parent.scope(state: \.left, action: Pair.Action.left).state == value }
    parent.send(.left(1))
    #expect(parent.core.observerCount == 1, "the 100 scoped stores that are gone dropped their observers")
  }

  @Test("Between a change and the next read no one can be registered: later changes skip the registrar, then resume")
  func changesBeforeTheNextRead() {
    let store = Store(initialState: Opaque.State(), reducer: Opaque())
    let notifications = Notifications()
    notifications.track { _ = store.state }
    store.send(.same)
    store.send(.same)
    #expect(notifications.count == 1, "one-shot: the first change ends the observation")
    notifications.track { _ = store.state }
    store.send(.same)
    #expect(notifications.count == 2, "read again, the next change is announced")
  }
}
