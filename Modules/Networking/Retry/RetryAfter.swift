import Foundation

/// Reads how long a server asked the client to wait: `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3),
/// or the `X-RateLimit-RetryAfter` some APIs send, in (fractional) seconds. Public for deliverers that schedule their own
/// retries, such as an analytics uploader.
public enum RetryAfter {
  /// The longest wait the headers ask for, measured from `now`; `nil` if they ask for none.
  public static func delay(in failure: NetworkError, now: Date = Date()) -> Duration? {
    guard let headers = failure.headers else { return nil }
    func header(_ name: String) -> String? {
      headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value.trimmingCharacters(in: .whitespaces)
    }
    let candidates =
      [header("Retry-After").flatMap { seconds($0) ?? date($0, now: now) }]
      + [header("X-RateLimit-RetryAfter").flatMap(seconds)]
    return candidates.compactMap { $0 }.max()
  }

  /// A cap that keeps the arithmetic safe whatever a server sends: a year.
  private static let longest: Double = 365 * 24 * 3_600

  private static func seconds(_ text: String) -> Duration? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return .milliseconds(Int((min(value, longest) * 1_000).rounded(.up)))
  }

  private static func date(_ text: String, now: Date) -> Duration? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: text) else { return nil }
    return .milliseconds(Int((min(max(0, date.timeIntervalSince(now)), longest) * 1_000).rounded(.up)))
  }
}
