/// An alert as state: what it says and its buttons, each with the action it sends. Presented with
/// the `ifLet` without a child reducer, it needs no reducer of its
/// own: a tap on any button dismisses it, after the parent handled the button's action.
///
/// ```swift
/// enum DeleteAlert: Equatable, Sendable { case confirmDelete }
///
/// let alert = AlertState<DeleteAlert>(
///   title: "Delete #general?", message: "Its messages go for everyone.",
///   buttons: [.destructive("Delete", action: .confirmDelete), .cancel("Keep it")])
/// print(alert.buttons.map(\.label))   // ["Delete", "Keep it"]
/// ```
public struct AlertState<Action: Sendable>: Sendable {
  /// The alert's title.
  public var title: String
  /// The text under the title, if any.
  public var message: String?
  /// The buttons, in order; none means the platform's single OK button, which dismisses.
  public var buttons: [ButtonState<Action>]

  /// An alert that says `title` and `message`, with `buttons`.
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = buttons
  }
}

extension AlertState: Equatable where Action: Equatable {}

/// A confirmation dialog (an action sheet) as state: like ``AlertState``, with a title the platform may hide.
public struct ConfirmationDialogState<Action: Sendable>: Sendable {
  /// The dialog's title.
  public var title: String
  /// The text under the title, if any.
  public var message: String?
  /// The choices, in order; the platform adds a cancel button when none has the cancel role.
  public var buttons: [ButtonState<Action>]

  /// A dialog that says `title` and `message`, with `buttons`.
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>]) {
    self.title = title
    self.message = message
    self.buttons = buttons
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {}

/// A button of an alert or a dialog: its label, its role, and the action a tap sends (none: it only dismisses).
public struct ButtonState<Action: Sendable>: Sendable {
  /// What a button means, so that the platform draws it as such.
  public enum Role: Hashable, Sendable {
    /// It cancels: drawn apart, chosen by the escape key.
    case cancel
    /// It destroys something: drawn in red.
    case destructive
  }

  /// The button's text.
  public var label: String
  /// Its role, if any.
  public var role: Role?
  /// What a tap sends, or `nil` for a button that only dismisses.
  public var action: Action?

  /// A button that says `label`, with `role`, that sends `action`.
  public init(_ label: String, role: Role? = nil, action: Action? = nil) {
    self.label = label
    self.role = role
    self.action = action
  }

  /// A destructive button that sends `action`.
  public static func destructive(_ label: String, action: Action) -> ButtonState {
    ButtonState(label, role: .destructive, action: action)
  }

  /// A cancel button: it only dismisses.
  public static func cancel(_ label: String) -> ButtonState { ButtonState(label, role: .cancel) }

  /// What the view sends when this button is tapped: its action, or the dismissal for a button without one.
  public var tapped: PresentationAction<Action> { action.map { .presented($0) } ?? .dismiss }
}

extension ButtonState: Equatable where Action: Equatable {}
