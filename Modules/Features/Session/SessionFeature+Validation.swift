extension SessionFeature {
  /// The sign-in form's rules, checked before anything is sent.
  enum Validation {
    /// Why `email` (already trimmed) cannot be an email address, or `nil`.
    static func emailError(_ email: String) -> String? {
      guard !email.isEmpty else { return "Enter your email." }
      let parts = email.split(separator: "@", omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
        !parts[1].hasSuffix("."), !email.contains(where: \.isWhitespace)
      else { return "Enter an email address such as name@example.com." }
      return nil
    }

    /// Why `password` cannot be sent, or `nil`.
    static func passwordError(_ password: String) -> String? {
      password.isEmpty ? "Enter your password." : nil
    }
  }
}
