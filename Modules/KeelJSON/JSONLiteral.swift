/// A value of JSON's shape that literals build: ``JSONValue``, and Socket.IO's value (JSON plus binary data). Its
/// cases are the requirements; the literal initialisers are written once, here.
///
/// ```swift
/// let value: JSONValue = ["name": "Ann", "tags": ["a", "b"], "age": 30, "admin": false, "manager": nil]
/// ```
public protocol JSONLiteral: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
where
  BooleanLiteralType == Bool, IntegerLiteralType == Int, FloatLiteralType == Double, StringLiteralType == String,
  ArrayLiteralElement == Self, Key == String, Value == Self
{
  /// `null`.
  static var null: Self { get }
  /// `true` or `false`.
  static func bool(_ value: Bool) -> Self
  /// A number.
  static func number(_ value: Double) -> Self
  /// A string.
  static func string(_ value: String) -> Self
  /// An array.
  static func array(_ values: [Self]) -> Self
  /// An object.
  static func object(_ fields: [String: Self]) -> Self
}

extension JSONLiteral {
  /// `null`.
  public init(nilLiteral: ()) { self = .null }
  /// A boolean.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// A whole number, as a number.
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// A number.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// A string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// An array.
  public init(arrayLiteral elements: Self...) { self = .array(elements) }
  /// An object; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, Self)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
