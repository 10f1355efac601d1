extension Collection {
  /// The element at `index`, or `nil` when the index is out of bounds (REQUIREMENTS F5).
  ///
  /// ```swift
  /// let results = ["ada", "grace"]
  /// let third = results[safe: 2]   // nil for fewer than three results, never a crash
  /// print(third ?? "no third result")
  /// ```
  public subscript(safe index: Index) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
