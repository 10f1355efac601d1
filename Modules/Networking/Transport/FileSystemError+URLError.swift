import Foundation
import KeelFiles

extension FileSystemError {
  /// The `URLError` URLSession reports for the same trouble with a transfer's file, carrying this error's sentence:
  /// what a ``FileTransferTransport`` throws when the file, not the network, failed.
  package var urlError: URLError {
    let code: URLError.Code =
      switch (operation, self.code) {
      case (_, ENOENT): .fileDoesNotExist
      case (_, EISDIR): .fileIsDirectory
      case (_, EACCES), (_, EPERM): operation == "create" ? .cannotCreateFile : .noPermissionsToReadFile
      case ("create", _): .cannotCreateFile
      case ("open", _), ("read", _), ("upload", _): .cannotOpenFile
      case ("replace", _): .cannotMoveFile
      default: .cannotWriteToFile
      }
    return URLError(code, userInfo: [NSLocalizedDescriptionKey: description])
  }
}
