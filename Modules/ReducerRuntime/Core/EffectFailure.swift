import Logging

/// Where an error that an effect threw without a `catch` handler goes: a warning in the log, so that it is seen in
/// development without crashing the app.
enum EffectFailure {
  static let logger = Logger(label: "keel.features")

  static func report(_ error: any Error) {
    logger.warning("An effect threw \(error) and has no catch handler: handle errors with .run(operation:catch:).")
  }
}
