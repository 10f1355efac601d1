#!/usr/bin/env bash
# The tests under ThreadSanitizer (`make tsan`): `swift test --sanitize=thread` in its own build folder, at most
# TSAN_WIDTH tests at once (4 by default: on two cores, every suite at once under TSan's slowdown starved the tests
# that wait on real time), and any arguments passed on to `swift test` (`--filter X`).
#
# No report is suppressed while the tests run. Every instrumented process (the test process, and the `keel` processes
# the CLI tests start) writes its reports to a file of its own in .build/tsan-reports and goes on (`exitcode=0`, so
# that a report in a `keel` process does not fail its test by its exit status alone); after the run,
# Scripts/tsan-judge.py reads them all and fails the run on any report but the known ones in
# Scripts/tsan-known-reports.txt, and on any of those with a Keel frame (but a handler that only passes a read on, which
# that file names, below the top of a stack).
#
# One retry, for one crash only: the Swift runtime on Linux sometimes dies under ThreadSanitizer with a SEGV while it
# completes a generic type's metadata (`isCanonicalStaticallySpecializedGenericMetadata`, on a SwiftNIO thread; seen now
# and then in CI, swiftlang/swift#58135). That is the toolchain crashing, not a race report and not a test failing, and
# the same run passes again. It comes in two shapes: the test process itself dies, or a `keel` process a CLI test
# starts (built with ThreadSanitizer too) dies and that test fails. When the judge finds that crash and no other report,
# and every failed test (if any) is a CLI test while a `keel` process crashed, the run goes once more and the crash is
# named in the log; anything else fails at once.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
log="$root/.build/tsan-run.log"
reports="$root/.build/tsan-reports"
mkdir -p "$root/.build"
export TSAN_OPTIONS="log_path=$reports/report exitcode=0 ${TSAN_OPTIONS:-}"
export KEEL_TSAN=1
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${TSAN_WIDTH:-4}

# Whether every test that failed in the log is a CLI test (Tests/CLITests). Swift Testing prints a failure as a line
# `✘ Test "…" recorded an issue … at File.swift:LINE:…`; one without a file, or an XCTest failure, answers no. No
# failed test answers yes.
only_cli_tests_failed() {
  ! grep -q -E "^Test Case .* failed|error: .*XCT" "$1" &&
    awk -v tests="$root/Tests/CLITests" '
      /^✘ Test .* recorded an issue/ {
        if (!match($0, / at [A-Za-z0-9_+]+\.swift:[0-9]+/)) { other = 1; next }
        file = substr($0, RSTART + 4, RLENGTH - 4)
        sub(/:[0-9]+$/, "", file)
        if (system("test -f \"" tests "/" file "\"") != 0) other = 1
      }
      END { exit other }
    ' "$1"
}

for attempt in 1 2; do
  rm -rf "$reports"
  mkdir -p "$reports"
  "$swift" test --sanitize=thread --build-path "$root/.build/tsan" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  python3 "$root/Scripts/tsan-judge.py" "$reports" "$root" "$root/Scripts/tsan-known-reports.txt" | tee -a "$log"
  verdict=${PIPESTATUS[0]}
  [[ $verdict -eq 0 && $status -eq 0 ]] && exit 0
  [[ $verdict -eq 1 ]] && exit 66
  if [[ $verdict -eq 2 && $attempt -eq 1 ]] && only_cli_tests_failed "$log" &&
    { ! grep -q '^✘ Test .* recorded an issue' "$log" || grep -q '^crashed: keel$' "$log"; }; then
    echo "tsan: the Swift runtime crashed completing generic metadata under ThreadSanitizer (swiftlang/swift#58135)," \
      "not a race report, and no test failed for another reason; running the tests once more"
    continue
  fi
  # A crash with exitcode=0 may leave the status 0: the run did not finish, and fails.
  [[ $status -eq 0 ]] && exit 1
  exit "$status"
done
