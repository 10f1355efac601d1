import Domain

/// Finds users by nickname as the user types (REQUIREMENTS F1, F3, D1, U7).
///
/// - Typing debounces: a search starts ``debounce`` after the last keystroke; a newer query cancels the older one's
///   wait or request.
/// - An empty (or blank) query clears the results and sends no request.
/// - A response is applied only while its query is still the one in the state: a late answer never overwrites newer
///   results.
/// - While a search is pending, ``State/isLoading`` is `true` and the previous results stay visible; a failure sets
///   ``State/errorMessage`` and clears them.
/// - Choosing a user is reported to the parent as ``Delegate/userSelected(_:)`` (F2).
///
/// ```swift
/// import Domain
///
/// let dependencies = Dependencies.live(configuration: KeelConfiguration())
/// try dependencies.users.initApplication(applicationId: "APP_ID", apiToken: "API_TOKEN")
///
/// let store = Store(initialState: UserSearchFeature.State(),
///                   reducer: UserSearchFeature.live(users: dependencies.users, clock: ContinuousClock()))
/// store.send(.view(.queryChanged("alice")))      // searches 300 ms later
/// let alice = User(userId: "alice", nickname: "alice")
/// store.send(.view(.userTapped(alice)))          // the parent receives .delegate(.userSelected(alice))
/// ```
public struct UserSearchFeature: Reducer {
  /// What the search screen shows.
  public struct State: Equatable, Sendable {
    /// The text typed, as typed.
    public var query: String
    /// The users found for ``query``, or for the previous query while a search is pending.
    public var results: [User]
    /// Whether a search for ``query`` is pending (waiting for the debounce or for the answer).
    public var isLoading: Bool
    /// Why the last search failed, or `nil`.
    public var errorMessage: String?

    /// A search screen, empty unless told otherwise.
    public init(query: String = "", results: [User] = [], isLoading: Bool = false, errorMessage: String? = nil) {
      self.query = query
      self.results = results
      self.isLoading = isLoading
      self.errorMessage = errorMessage
    }
  }

  /// What can happen to the search, grouped by where it comes from (F3).
  public typealias Action = FeatureAction<View, Never, Response, Delegate>

  /// What the user does on screen.
  public enum View: Equatable, Sendable {
    /// The query text changed.
    case queryChanged(String)
    /// The user chose one of the results.
    case userTapped(User)
  }

  /// The outcome of a search, with the query it was for.
  public enum Response: Equatable, Sendable {
    /// The users whose nickname matches `query`.
    case results(query: String, users: [User])
    /// The search for `query` failed, for the reason in `message`.
    case failed(query: String, message: String)
  }

  /// What the search tells its parent.
  public enum Delegate: Equatable, Sendable {
    /// The user chose `user`.
    case userSelected(User)
  }

  /// How long typing must pause before a search starts.
  public static let debounce: Duration = .milliseconds(300)

  private struct SearchID: Hashable, Sendable {}

  private let search: @Sendable (String) async throws -> [User]
  private let clock: any Clock<Duration>

  /// A search feature.
  ///
  /// - Parameters:
  ///   - search: Finds the users whose nickname matches a query; cancelled when a newer query replaces it.
  ///   - clock: What the debounce waits on: a `TestClock` in tests.
  public init(search: @escaping @Sendable (String) async throws -> [User], clock: any Clock<Duration>) {
    self.search = search
    self.clock = clock
  }

  /// A search feature that asks `users` for exact nickname matches (U7), debouncing on `clock`.
  public static func live(users: UserManager, clock: any Clock<Duration>) -> UserSearchFeature {
    UserSearchFeature(search: { try await users.getUsers(nicknameMatches: $0) }, clock: clock)
  }

  /// Applies `action` to the search.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .view(.queryChanged(let query)):
      return queryChanged(to: query, state: &state)
    case .view(.userTapped(let user)):
      return .send(.delegate(.userSelected(user)))
    case .response(.results(let query, let users)):
      guard query == state.query else { return .none }
      state.results = users
      state.isLoading = false
      state.errorMessage = nil
      return .none
    case .response(.failed(let query, let message)):
      guard query == state.query else { return .none }
      state.results = []
      state.isLoading = false
      state.errorMessage = message
      return .none
    case .delegate:
      return .none
    }
  }

  private func queryChanged(to query: String, state: inout State) -> Effect<Action> {
    state.query = query
    state.errorMessage = nil
    guard !query.allSatisfy(\.isWhitespace) else {
      state.results = []
      state.isLoading = false
      return .cancel(id: SearchID())
    }
    state.isLoading = true
    return .run { [search, clock] send in
      try await clock.sleep(for: Self.debounce)
      let users = try await search(query)
      await send(.response(.results(query: query, users: users)))
    } catch: { error, send in
      await send(.response(.failed(query: query, message: String(describing: error))))
    }
    .cancellable(id: SearchID(), cancelInFlight: true)
  }
}
