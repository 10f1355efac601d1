/// Work a reducer asks the store to do, as a value (REQUIREMENTS F1): nothing, an action to send at once, async work
/// that sends actions, several at once, and cancellation by id.
///
/// ```swift
/// struct Search: Reducer {
///   struct State { var query = "", results: [String] = [], error: String? }
///   enum Action: Sendable { case searchChanged(String), results([String]), failed(String) }
///   struct SearchID: Hashable, Sendable {}
///   let search: @Sendable (String) async throws -> [String]
///   let clock: any Clock<Duration>
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .searchChanged(let query):
///       state.query = query
///       return .run { [search, clock] send in
///         try await clock.sleep(for: .milliseconds(300))   // debounce (D1)
///         await send(.results(try await search(query)))
///       } catch: { error, send in
///         await send(.failed("\(error)"))
///       }
///       .cancellable(id: SearchID(), cancelInFlight: true)
///     case .results(let results): state.results = results
///     case .failed(let message): state.error = message
///     }
///     return .none
///   }
/// }
/// ```
public struct Effect<Action: Sendable>: Sendable {
  /// What the effect is.
  indirect enum Operation: Sendable {
    case none
    case send(Action)
    case run(@Sendable (Send<Action>) async -> Void)
    case merge([Effect])
    case cancellable(id: CancelID, cancelInFlight: Bool, Effect)
    case cancel(id: CancelID)
    case dismiss
  }

  let operation: Operation

  /// No work.
  public static var none: Effect { Effect(operation: .none) }

  /// Sends `action` at once: it joins the end of the store's line of actions to reduce, behind every action already
  /// waiting there (such as one sent to the store while the current action was being reduced), and is reduced
  /// before the store's `send` returns.
  public static func send(_ action: Action) -> Effect { Effect(operation: .send(action)) }

  /// Async work that may send actions back; a thrown error goes to `handler`, or, without one, is a programming
  /// error reported by a runtime warning in debug builds and otherwise ignored. Cancellation is not an error.
  ///
  /// - Parameters:
  ///   - operation: The work. It runs in a task the store owns, cancelled when the store goes away or its id is
  ///     cancelled.
  ///   - handler: What to do with an error the work throws (not with `CancellationError`).
  public static func run(
    operation: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch handler: (@Sendable (any Error, Send<Action>) async -> Void)? = nil
  ) -> Effect {
    Effect(
      operation: .run { send in
        do {
          try await operation(send)
        } catch is CancellationError {
          return
        } catch {
          guard !Task.isCancelled else { return }
          if let handler {
            await handler(error, send)
          } else {
            EffectFailure.report(error)
          }
        }
      })
  }

  /// Runs every effect at once.
  public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

  /// Runs every effect at once.
  public static func merge(_ effects: [Effect]) -> Effect {
    let work = effects.filter { if case .none = $0.operation { false } else { true } }
    return work.count == 1 ? work[0] : Effect(operation: work.isEmpty ? .none : .merge(work))
  }

  /// Marks the effect's work with `id`, so that ``cancel(id:)`` (or a later effect with `cancelInFlight`) can stop
  /// it.
  ///
  /// - Parameters:
  ///   - id: Any hashable value; ids of different types never match.
  ///   - cancelInFlight: Whether starting this effect first cancels the work already running under `id`: a newer
  ///     search replaces the older one.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
    Effect(operation: .cancellable(id: CancelID(id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels the work running under `id`.
  public static func cancel(id: some Hashable & Sendable) -> Effect { Effect(operation: .cancel(id: CancelID(id))) }

  /// Asks whoever presents this feature to dismiss it: the nearest presentation (an `ifLet` of a
  /// ``PresentationAction``) sets the feature's state to `nil`, or the navigation stack (a `forEach` of a
  /// ``StackState``) pops it and every destination above it. Either cancels the feature's effects. A feature that
  /// nothing presents logs a warning and stays.
  ///
  /// A reducer returns it, typically on the answer of the request the screen was for: the rename succeeded, the sheet
  /// goes.
  public static var dismiss: Effect { Effect(operation: .dismiss) }

  /// The same work, with every action it sends turned into another action: how a parent runs a child's effects.
  public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    switch operation {
    case .none: .none
    case .send(let action): .send(transform(action))
    case .run(let work): Effect<Other>(operation: .run { send in await work(Send { await send(transform($0)) }) })
    case .merge(let effects): .merge(effects.map { $0.map(transform) })
    case .cancellable(let id, let cancelInFlight, let effect):
      Effect<Other>(operation: .cancellable(id: id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case .cancel(let id): Effect<Other>(operation: .cancel(id: id))
    case .dismiss: .dismiss
    }
  }

  /// The same effect with every ``dismiss`` replaced by `replacement`: how a presenter turns its child's wish to go
  /// into an action of its own.
  package func replacingDismiss(with replacement: Effect) -> Effect {
    switch operation {
    case .none, .send, .run, .cancel: self
    case .dismiss: replacement
    case .merge(let effects): Effect(operation: .merge(effects.map { $0.replacingDismiss(with: replacement) }))
    case .cancellable(let id, let cancelInFlight, let inner):
      Effect(
        operation: .cancellable(
          id: id, cancelInFlight: cancelInFlight, inner.replacingDismiss(with: replacement)))
    }
  }
}

/// An effect id, whatever its type: two ids are the same when their types and values are.
struct CancelID: Hashable, @unchecked Sendable {  // Safe: see the first line below.
  // @unchecked: `value` wraps only a `Hashable & Sendable` value (the initializer's constraint), and is never mutated.
  private let value: AnyHashable
  private let type: ObjectIdentifier

  init<ID: Hashable & Sendable>(_ id: ID) {
    value = AnyHashable(id)
    type = ObjectIdentifier(ID.self)
  }

  static func == (lhs: CancelID, rhs: CancelID) -> Bool { lhs.type == rhs.type && lhs.value == rhs.value }
  func hash(into hasher: inout Hasher) {
    hasher.combine(type)
    hasher.combine(value)
  }
}
