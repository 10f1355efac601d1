#!/usr/bin/env bash
# The tests under ThreadSanitizer (`make tsan`): `swift test --sanitize=thread` in its own build folder, with the
# suppressions in Scripts/tsan-suppressions.txt, at most TSAN_WIDTH tests at once (4 by default: on two cores, every
# suite at once under TSan's slowdown starved the tests that wait on real time), and any arguments passed on to
# `swift test` (`--filter X`).
#
# One retry, for one crash only: the Swift runtime on Linux sometimes dies under ThreadSanitizer with a SEGV while it
# completes a generic type's metadata (`isCanonicalStaticallySpecializedGenericMetadata`, on a SwiftNIO thread; seen now
# and then in CI, swiftlang/swift#58135). That is the toolchain crashing, not a race report and not a test
# failing, and the same run passes again. The crash comes in two shapes: the test process itself dies, or a `keel`
# process a CLI test starts (built with ThreadSanitizer too) dies and its test fails with the crash in its message. When
# a run ends in either shape, with no race reported and every failed test's message holding that crash, it is run once
# more and the crash is named in the log; anything else fails at once.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
log="$root/.build/tsan-run.log"
mkdir -p "$root/.build"
export TSAN_OPTIONS="suppressions=$root/Scripts/tsan-suppressions.txt ${TSAN_OPTIONS:-}"
export KEEL_TSAN=1
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${TSAN_WIDTH:-4}

# Whether every test that failed in the log failed with the runtime crash in its message (a child process's standard
# error, which the CLI tests put in their expectations' comments). Swift Testing prints a failure as a line
# `✘ Test "…" recorded an issue …` followed by its comment's lines, each starting with `↳` or indented; a failure whose
# lines lack the crash, or an XCTest failure, answers no. No failed test at all answers yes: the test process died.
only_the_runtime_crash_failed() {
  ! grep -q -E "^Test Case .* failed|error: .*XCT" "$1" &&
    awk '
      inside && /^(↳|[[:space:]])/ { if (/isCanonicalStaticallySpecializedGenericMetadata/) crashed = 1; next }
      inside { if (!crashed) other = 1; inside = 0 }
      /^✘ Test .* recorded an issue/ { inside = 1; crashed = 0 }
      END { if (inside && !crashed) other = 1; exit other }
    ' "$1"
}

for attempt in 1 2; do
  "$swift" test --sanitize=thread --build-path "$root/.build/tsan" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  [[ $status -eq 0 ]] && exit 0
  if [[ $attempt -eq 1 ]] &&
    grep -q 'SUMMARY: ThreadSanitizer: SEGV .*isCanonicalStaticallySpecializedGenericMetadata' "$log" &&
    ! grep -q 'WARNING: ThreadSanitizer:' "$log" && only_the_runtime_crash_failed "$log"; then
    echo "tsan: the Swift runtime crashed completing generic metadata under ThreadSanitizer (swiftlang/swift#58135)," \
      "not a race report, and no test failed for another reason; running the tests once more"
    continue
  fi
  exit "$status"
done
