import Clocks
import FeaturesTesting
import Testing

@testable import ReducerRuntime

/// A screen that loads on a clock (under one cancel id, the same on every screen of its kind), and can close itself.
private struct Screen: Reducer {
  struct State: Equatable, Sendable {
    var title: String
    var loaded = 0
  }

  enum Action: Equatable, Sendable {
    case load
    case loaded
    case closeTapped
  }

  struct LoadID: Hashable, Sendable {}

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .load:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.loaded)
      }
      .cancellable(id: LoadID(), cancelInFlight: true)
    case .loaded:
      state.loaded += 1
      return .none
    case .closeTapped:
      return .dismiss
    }
  }
}

/// The stack's destinations: a screen, or a page with no logic of its own, as an enum of cases.
private struct Destination: Reducer {
  enum State: Equatable, Sendable {
    case screen(Screen.State)
    case about
  }

  enum Action: Equatable, Sendable {
    case screen(Screen.Action)
  }

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Scope(
      stateCase: { if case .screen(let screen) = $0 { screen } else { nil } }, embedState: State.screen,
      action: { if case .screen(let action) = $0 { action } else { nil } }, embed: Action.screen
    ) {
      Screen(clock: clock)
    }
    .reduce(into: &state, action: action)
  }
}

/// A root with a navigation stack, a sheet, and an alert.
private struct Root: Reducer {
  struct State: Equatable, Sendable {
    var path = StackState<Destination.State>()
    var sheet: Screen.State?
    var alert: AlertState<AlertAction>?
    var log: [String] = []
  }

  enum AlertAction: Equatable, Sendable {
    case confirm
    case askAgain
  }

  enum Action: Equatable, Sendable {
    case open(String)
    case openAbout
    case present(String)
    case askToConfirm
    case popToRoot
    case path(StackAction<Destination.State, Destination.Action>)
    case sheet(PresentationAction<Screen.Action>)
    case alert(PresentationAction<AlertAction>)
  }

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Reduce<State, Action> { state, action in
      switch action {
      case .open(let title): state.path.append(.screen(Screen.State(title: title)))
      case .openAbout: state.path.append(.about)
      case .present(let title): state.sheet = Screen.State(title: title)
      case .askToConfirm:
        state.alert = AlertState(title: "Sure?", buttons: [.destructive("Yes", action: .confirm), .cancel("No")])
      case .popToRoot: state.path.removeAll()
      case .path(.popFrom(let id)): state.log.append("pop from \(id), depth \(state.path.count)")
      case .sheet(.dismiss): state.log.append("sheet \(state.sheet?.title ?? "none") dismissed")
      case .alert(.presented(.confirm)): state.log.append("confirmed, alert shown: \(state.alert != nil)")
      case .alert(.presented(.askAgain)): state.alert = AlertState(title: "Really?", buttons: [.cancel("No")])
      case .path, .sheet, .alert: break
      }
      return .none
    }
    .forEach(\.path, action: { if case .path(let a) = $0 { a } else { nil } }, embed: Action.path) {
      Destination(clock: clock)
    }
    .ifLet(\.sheet, action: { if case .sheet(let a) = $0 { a } else { nil } }, embed: Action.sheet) {
      Screen(clock: clock)
    }
    .ifLet(\.alert, action: { if case .alert(let a) = $0 { a } else { nil } }, embed: Action.alert)
    .reduce(into: &state, action: action)
  }
}

@Suite("Navigation", .timeLimit(.minutes(3)))
@MainActor
struct NavigationTests {
  // MARK: - The stack

  @Test("StackState gives every pushed destination a new id, and pops from or to one")
  func stackState() {
    var stack = StackState(["a", "b"])
    #expect(stack.ids == [0, 1])
    let c = stack.append("c")
    stack.popLast()
    let d = stack.append("d")
    #expect(c == 2 && d == 3, "a popped destination's id is never given again")
    stack.append("e")
    stack.pop(to: 1)
    #expect(Array(stack) == ["a", "b"])
    stack[id: 1] = "B"
    stack.pop(from: 0)
    #expect(stack.isEmpty && stack.ids.isEmpty)
    #expect(StackState(["x"]) == StackState(["x"]))
  }

  @Test("A push and a destination's actions, each reduced by the destination first, then the parent")
  func pushAndElement() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.open("general")) { $0.path.append(.screen(Screen.State(title: "general"))) }
    await store.send(.path(.element(id: 0, action: .screen(.load))))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .screen(.loaded)))) {
      $0.path[id: 0] = .screen(Screen.State(title: "general", loaded: 1))
    }
    await store.finish()
  }

  @Test("A pop from the view cancels the popped destination's effects, and those of every one above it")
  func popCancels() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.open("a")) { $0.path.append(.screen(Screen.State(title: "a"))) }
    await store.send(.open("b")) { $0.path.append(.screen(Screen.State(title: "b"))) }
    await store.send(.path(.element(id: 0, action: .screen(.load))))
    await store.send(.path(.element(id: 1, action: .screen(.load))))
    #expect(await clock.sleeperArrived())
    await store.send(.path(.popFrom(id: 0))) {
      $0.log = ["pop from #0, depth 2"]  // the parent sees the pop before it happens
      $0.path.removeAll()
    }
    await clock.advance(by: .seconds(5))
    // Nothing to receive, and nothing left running: the TestStore fails otherwise.
    await store.finish()
  }

  @Test("A destination that returns .dismiss pops itself; its effects are cancelled")
  func destinationDismissesItself() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.open("a")) { $0.path.append(.screen(Screen.State(title: "a"))) }
    await store.send(.openAbout) { $0.path.append(.about) }
    await store.send(.path(.element(id: 0, action: .screen(.load))))
    #expect(await clock.sleeperArrived())
    await store.send(.path(.element(id: 0, action: .screen(.closeTapped))))
    await store.receive(.path(.popFrom(id: 0))) {
      $0.log = ["pop from #0, depth 2"]
      $0.path.removeAll()
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test("The parent emptying the stack cancels every destination's effects")
  func popToRoot() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.open("a")) { $0.path.append(.screen(Screen.State(title: "a"))) }
    await store.send(.open("b")) { $0.path.append(.screen(Screen.State(title: "b"))) }
    await store.send(.path(.element(id: 1, action: .screen(.load))))
    #expect(await clock.sleeperArrived())
    await store.send(.popToRoot) { $0.path.removeAll() }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test("A push from the view keeps the view's id, and later pushes follow it; a stale push is ignored")
  func viewPush() async {
    let store = Store(initialState: Root.State(), reducer: Root(clock: TestClock()))
    store.send(.path(.push(id: 7, state: .about)))
    store.send(.open("after"))
    #expect(store.state.path.ids == [7, 8])
    store.send(.path(.push(id: 3, state: .about)))
    #expect(store.state.path.ids == [7, 8], "an id older than the stack's newest is refused")
    store.send(.popToRoot)
    store.send(.path(.push(id: 8, state: .about)))
    #expect(store.state.path.ids.isEmpty, "an id the stack gave before, now popped, is refused")
    store.send(.path(.element(id: 99, action: .screen(.load))))
    #expect(store.runningEffectCount == 0, "an action for a destination not on the stack starts nothing")
  }

  // MARK: - Presentation

  @Test("A sheet's dismissal from the view reaches the parent with the sheet still there, then cancels its effects")
  func sheetDismissedByView() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.present("rename")) { $0.sheet = Screen.State(title: "rename") }
    await store.send(.sheet(.presented(.load)))
    #expect(await clock.sleeperArrived())
    await store.send(.sheet(.dismiss)) {
      $0.log = ["sheet rename dismissed"]
      $0.sheet = nil
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test("A sheet that returns .dismiss dismisses itself through its parent")
  func sheetDismissesItself() async {
    let clock = TestClock()
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: clock))
    await store.send(.present("rename")) { $0.sheet = Screen.State(title: "rename") }
    await store.send(.sheet(.presented(.load)))
    #expect(await clock.sleeperArrived())
    await store.send(.sheet(.presented(.closeTapped)))
    await store.receive(.sheet(.dismiss)) {
      $0.log = ["sheet rename dismissed"]
      $0.sheet = nil
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
    // A second dismissal, as a closing sheet may send: the parent sees it; nothing else happens.
    await store.send(.sheet(.dismiss)) { $0.log.append("sheet none dismissed") }
  }

  @Test("An alert's button reaches the parent with the alert still there; then the alert goes")
  func alertButton() async {
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: TestClock()))
    await store.send(.askToConfirm) {
      $0.alert = AlertState(title: "Sure?", buttons: [.destructive("Yes", action: .confirm), .cancel("No")])
    }
    #expect(store.state.alert?.buttons.map(\.tapped) == [.presented(.confirm), .dismiss])
    await store.send(.alert(.presented(.confirm))) {
      $0.log = ["confirmed, alert shown: true"]
      $0.alert = nil
    }
    await store.send(.askToConfirm) {
      $0.alert = AlertState(title: "Sure?", buttons: [.destructive("Yes", action: .confirm), .cancel("No")])
    }
    await store.send(.alert(.dismiss)) { $0.alert = nil }
    // A second tap on a button whose alert is gone reaches nothing: the parent does not confirm twice.
    await store.send(.alert(.presented(.confirm)))
  }

  @Test("An alert the parent shows in answer to a button stays; the one the button belonged to goes")
  func alertReplaced() async {
    let store = TestStore(initialState: Root.State(), reducer: Root(clock: TestClock()))
    await store.send(.askToConfirm) {
      $0.alert = AlertState(title: "Sure?", buttons: [.destructive("Yes", action: .confirm), .cancel("No")])
    }
    await store.send(.alert(.presented(.askAgain))) {
      $0.alert = AlertState(title: "Really?", buttons: [.cancel("No")])
    }
  }

  @Test("A warning about an absent child names the action's case, never what it carries (a typed password)")
  func warningHidesPayload() {
    enum Form {
      case passwordChanged(String)
      case submitted
    }
    let named = CompositionWarning.caseName(of: Form.passwordChanged("hunter2"))
    #expect(named.hasSuffix(".passwordChanged") && !named.contains("hunter2"), "\(named)")
    #expect(CompositionWarning.caseName(of: Form.submitted).hasSuffix(".submitted"))
  }

  @Test("A feature that asks to be dismissed where nothing presents it stays, and the TestStore shows it asked")
  func dismissWithoutPresenter() async {
    let store = TestStore(initialState: Screen.State(title: "alone"), reducer: Screen(clock: TestClock()))
    #expect(!store.isDismissed)
    await store.send(.closeTapped)
    #expect(store.isDismissed)
  }
}
