import Logging

/// Warnings about actions a composed reducer could not deliver: a programming error in the app (a child action sent
/// for a child that is gone), logged like an effect's unhandled error, never a crash.
enum CompositionWarning {
  static func missingChild(_ action: some Any, in place: String) {
    EffectFailure.logger.warning(
      "\(caseName(of: action)) reached \(place) while that child was absent, and was ignored: send a child's actions only while it exists."
    )
  }

  /// The action's type and case, never its payload: a text field's action carries what was typed (a password).
  static func caseName(of action: some Any) -> String {
    let label = Mirror(reflecting: action).children.first?.label
    let name = label ?? (Mirror(reflecting: action).displayStyle == .enum ? "\(action)" : "…")
    return "\(type(of: action)).\(name)"
  }

  static func nothingPresents(_ action: Any.Type) {
    EffectFailure.logger.warning(
      "A feature whose actions are \(action) asked to be dismissed, but nothing presents it: present it with ifLet of a PresentationAction or a navigation stack."
    )
  }

  static func pushIgnored(_ id: StackElementID, in place: String) {
    EffectFailure.logger.warning(
      "A push with id \(id) reached \(place), whose stack already gave that id (or a later one), and was ignored."
    )
  }
}
