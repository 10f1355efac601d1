import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's resident memory in KiB, from `/proc/self/statm` (0 where there is none): for the rows that weigh
/// what something keeps.
func residentKiB() -> Int {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
    let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { return 0 }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_024
}
