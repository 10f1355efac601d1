/// Keel's version, as the CLI's `--version` prints it and as analytics events name their library.
public enum KeelVersion {
  /// The release this build was made from (no release is tagged yet, so the development line's).
  public static let current = "0.1.0-dev"
}
