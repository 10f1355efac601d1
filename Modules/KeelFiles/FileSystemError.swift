import Foundation

/// A file-system call that failed: what was being done, to which path, and the system's error number.
package struct FileSystemError: Error, CustomStringConvertible, Sendable {
  /// The `errno` of the failed call, such as `ENOSPC`.
  package let code: Int32
  /// What was being done: `create`, `write`, `replace`.
  package let operation: String
  /// The path it was done to.
  package let path: String
  /// Keel's words for what is wrong, where the system's would mislead (a link refused reads `ELOOP`).
  package let explanation: String?

  /// A failure of `operation` on `path` with `errno` `code`, explained in the system's words unless `explanation`.
  package init(_ code: Int32, while operation: String, path: String, explanation: String? = nil) {
    self.code = code
    self.operation = operation
    self.path = path
    self.explanation = explanation
  }

  /// Why it failed: ``explanation``, or the system's words for ``code`` (`No space left on device`).
  package var reason: String { explanation ?? String(cString: strerror(code)) }

  /// `Cannot write /path: No space left on device`.
  package var description: String { "Cannot \(operation) \(path): \(reason)" }
}
