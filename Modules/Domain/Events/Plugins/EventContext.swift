import Foundation
import KeelJSON

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the built-in enrichment adds to every event's ``AnalyticsEvent/context`` (REQUIREMENTS E10), in the Segment
/// specification's names: `app` (`name`, `version`, `build`, `namespace`), `os` (`name`, `version`), `device`
/// (`model`), `locale`, `timezone` and `library` (`name`, `version`). The session id is added beside them by the
/// tracker (``EventTrackerConfiguration/sessionTimeout``).
///
/// ``current`` reads it once from the main bundle and the system; tests and apps with their own names pass one.
public struct EventContext: Sendable, Hashable {
  /// `app`: `name`, `version` (`CFBundleShortVersionString`), `build` (`CFBundleVersion`), `namespace` (the bundle
  /// identifier); a value the bundle does not have is left out.
  public var app: [String: String]
  /// `os.name`, such as `iOS` or `Linux`.
  public var osName: String
  /// `os.version`, such as `17.4.1`.
  public var osVersion: String
  /// `device.model`, the hardware's identifier, such as `iPhone15,2` or `x86_64`.
  public var deviceModel: String
  /// `locale`, such as `en-US`.
  public var locale: String
  /// `timezone`, such as `Europe/Paris`.
  public var timeZone: String
  /// `library.name`: `keel`.
  public var libraryName: String
  /// `library.version`: `KeelVersion.current`.
  public var libraryVersion: String

  /// A context with these values.
  public init(
    app: [String: String], osName: String, osVersion: String, deviceModel: String, locale: String,
    timeZone: String, libraryName: String = "keel", libraryVersion: String = KeelVersion.current
  ) {
    self.app = app
    self.osName = osName
    self.osVersion = osVersion
    self.deviceModel = deviceModel
    self.locale = locale
    self.timeZone = timeZone
    self.libraryName = libraryName
    self.libraryVersion = libraryVersion
  }

  /// This app and device, read from the main bundle, the process and the system.
  public static var current: EventContext {
    let info = Bundle.main.infoDictionary ?? [:]
    var app: [String: String] = [:]
    app["name"] =
      (info["CFBundleDisplayName"] ?? info["CFBundleName"]) as? String ?? ProcessInfo.processInfo.processName
    app["version"] = info["CFBundleShortVersionString"] as? String
    app["build"] = info["CFBundleVersion"] as? String
    app["namespace"] = Bundle.main.bundleIdentifier
    let version = ProcessInfo.processInfo.operatingSystemVersion
    return EventContext(
      app: app, osName: osName,
      osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
      deviceModel: machine(), locale: Locale.current.identifier.replacingOccurrences(of: "_", with: "-"),
      timeZone: TimeZone.current.identifier)
  }

  /// The context as the event carries it, without the session.
  var json: [String: JSONValue] {
    [
      "app": .object(app.mapValues(JSONValue.string)),
      "os": ["name": .string(osName), "version": .string(osVersion)],
      "device": ["model": .string(deviceModel)],
      "locale": .string(locale),
      "timezone": .string(timeZone),
      "library": ["name": .string(libraryName), "version": .string(libraryVersion)],
    ]
  }

  private static var osName: String {
    #if os(iOS)
      "iOS"
    #elseif os(macOS)
      "macOS"
    #elseif os(tvOS)
      "tvOS"
    #elseif os(watchOS)
      "watchOS"
    #elseif os(visionOS)
      "visionOS"
    #elseif os(Linux)
      "Linux"
    #elseif os(Android)
      "Android"
    #elseif os(Windows)
      "Windows"
    #else
      "unknown"
    #endif
  }

  /// The hardware identifier `uname` gives: `iPhone15,2` on a phone, the architecture elsewhere.
  private static func machine() -> String {
    var name = utsname()
    guard uname(&name) == 0 else { return "unknown" }
    return withUnsafeBytes(of: &name.machine) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
  }
}
