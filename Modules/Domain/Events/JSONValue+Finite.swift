// JSONValue is KeelBasics' (the Sandbox speaks it too); Domain's API shows it, so Domain's clients get it from
// `import Domain`.
@_exported import KeelBasics

extension JSONValue {
  /// Whether every number in the value is finite, so that it has a JSON form.
  var isFinite: Bool {
    switch self {
    case .null, .bool, .string: true
    case .number(let value): value.isFinite
    case .array(let values): values.allSatisfy(\.isFinite)
    case .object(let values): values.values.allSatisfy(\.isFinite)
    }
  }
}
