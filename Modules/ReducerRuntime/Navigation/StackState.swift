/// A navigation stack as state: the destinations pushed on the root screen, bottom first, each with an id of its own
/// (REQUIREMENTS F2). The ids come from a counter the stack keeps, so an id is never given twice in one stack: a late
/// answer for a popped screen never reaches a screen pushed after it. Go back to the root with ``removeAll()``, which
/// keeps counting; a new `StackState` assigned in place of one with screens starts again from 0, and a screen then
/// pushed under an old id would be taken for the old one.
///
/// ```swift
/// var path = StackState<String>()
/// path.append("channel")
/// let settings = path.append("settings")
/// path.append("member")
/// path.pop(from: settings)   // back to the channel
/// print(Array(path))         // ["channel"]
/// ```
public struct StackState<Element>: RandomAccessCollection {
  /// The destinations' ids, bottom first.
  public private(set) var ids: [StackElementID]
  private var elements: [Element]
  /// The id the next pushed destination gets.
  private var nextID: Int

  /// An empty stack: the root screen alone.
  public init() {
    self.init([])
  }

  /// A stack of `elements`, bottom first.
  public init(_ elements: some Sequence<Element>) {
    self.elements = Array(elements)
    ids = self.elements.indices.map { StackElementID(rawValue: $0) }
    nextID = self.elements.count
  }

  /// The position of the bottom destination.
  public var startIndex: Int { elements.startIndex }
  /// The position after the top destination.
  public var endIndex: Int { elements.endIndex }

  /// The destination at `position`, bottom first.
  public subscript(position: Int) -> Element {
    get { elements[position] }
    set { elements[position] = newValue }
  }

  /// The destination with `id`, or `nil` when it is not on the stack; setting `nil` is ignored.
  public subscript(id id: StackElementID) -> Element? {
    get { ids.firstIndex(of: id).map { elements[$0] } }
    set {
      guard let newValue, let index = ids.firstIndex(of: id) else { return }
      elements[index] = newValue
    }
  }

  /// Pushes `element` on top; returns its id.
  @discardableResult
  public mutating func append(_ element: Element) -> StackElementID {
    let id = StackElementID(rawValue: nextID)
    push(element, id: id)
    return id
  }

  /// Whether `id` is one this stack has not given yet: what a view's push must carry.
  func isNew(_ id: StackElementID) -> Bool { id.rawValue >= nextID }

  /// Pushes `element` with an id the view made (``StackAction/push(id:state:)``); later ids follow it.
  mutating func push(_ element: Element, id: StackElementID) {
    elements.append(element)
    ids.append(id)
    nextID = Swift.max(nextID, id.rawValue + 1)
  }

  /// Pops the top destination; returns it, or `nil` on the root screen.
  @discardableResult
  public mutating func popLast() -> Element? {
    guard !elements.isEmpty else { return nil }
    ids.removeLast()
    return elements.removeLast()
  }

  /// Pops the destination with `id` and every one above it; nothing when `id` is not on the stack.
  public mutating func pop(from id: StackElementID) {
    guard let index = ids.firstIndex(of: id) else { return }
    ids.removeSubrange(index...)
    elements.removeSubrange(index...)
  }

  /// Pops every destination above the one with `id`; nothing when `id` is not on the stack.
  public mutating func pop(to id: StackElementID) {
    guard let index = ids.firstIndex(of: id) else { return }
    ids.removeSubrange((index + 1)...)
    elements.removeSubrange((index + 1)...)
  }

  /// Pops every destination: back to the root screen.
  public mutating func removeAll() {
    ids.removeAll()
    elements.removeAll()
  }
}

extension StackState: Equatable where Element: Equatable {
  /// Two stacks are equal when they hold equal destinations under the same ids; the ids still to give do not count.
  public static func == (lhs: StackState, rhs: StackState) -> Bool {
    lhs.ids == rhs.ids && lhs.elements == rhs.elements
  }
}

extension StackState: Sendable where Element: Sendable {}

/// The id of one destination of a ``StackState``: unique in its stack for the stack's life.
public struct StackElementID: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
  /// The number the stack gave.
  public let rawValue: Int

  /// The id numbered `rawValue`.
  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// The id numbered `value`: for tests, which know the order in which destinations are pushed.
  public init(integerLiteral value: Int) {
    rawValue = value
  }

  /// Orders ids as they were given.
  public static func < (lhs: StackElementID, rhs: StackElementID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `#` and the number.
  public var description: String { "#\(rawValue)" }
}

/// What can happen to a navigation stack: an action of one destination, a pop the view asked for (the back button,
/// a swipe), or a push the view made (a navigation link with a destination's state).
public enum StackAction<State: Sendable, Action: Sendable>: Sendable {
  /// An action of the destination with `id`.
  case element(id: StackElementID, action: Action)
  /// Pop the destination with `id` and every one above it.
  case popFrom(id: StackElementID)
  /// Push `state` under `id`, which must be new to the stack.
  case push(id: StackElementID, state: State)
}

extension StackAction: Equatable where State: Equatable, Action: Equatable {}
