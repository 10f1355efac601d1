/// One `name=value` pair of a URL's query, percent-encoded when the URL is built.
public struct QueryItem: Hashable, Sendable {
  /// The name, not yet encoded.
  public var name: String
  /// The value, not yet encoded.
  public var value: String

  /// A query item.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}
