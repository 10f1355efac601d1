#!/usr/bin/env bash
# Builds and runs the README's "library in your own package" sample as a user would: its two files, taken from the
# README itself, in a package outside this repository beside a folder named `keel` that is this clone. It runs twice
# against a Sandbox started here, and each run must print what the README's `swift run` lines say it prints.
# The package and its build stay when it ends, for Scripts/consumer-check.sh (the next step of `make ci`) to build its
# own outside package on the same Keel into the same build folder, which compiles Keel's app modules once for both; that
# step removes them.
# Usage: Scripts/readme-package.sh (from the repository root; `make readme-package`). Needs python3 and a built keel.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
# One folder per clone, outside it, made afresh: the package as a user starts it.
work="${TMPDIR:-/tmp}/keel-outside-packages-$(cksum <<<"$root" | cut -d' ' -f1)"
rm -rf "$work"
mkdir -p "$work"
sandbox_pid=
cleanup() {
  if [[ -n $sandbox_pid ]]; then kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true; fi
  rm -f "$work/expected" "$work/sandbox-url"
}
trap cleanup EXIT

# The section's blocks, in order: Package.swift, main.swift, then the shell lines with the expected output.
python3 - "$root/README.md" "$work" <<'PY'
import pathlib, re, sys
readme, work = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2])
section = readme.split("### The library in your own package", 1)[1].split("\n### ", 1)[0]
blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.S)
swift = [body for kind, body in blocks if kind == "swift"]
shell = [body for kind, body in blocks if kind == "sh"]
if len(swift) != 2 or len(shell) != 1:
    sys.exit(f"readme-package: expected 2 swift blocks and 1 sh block in the README section, found {len(swift)} and {len(shell)}")
app = work / "MyApp"
(app / "Sources/MyApp").mkdir(parents=True)
(app / "Package.swift").write_text(swift[0])
(app / "Sources/MyApp/main.swift").write_text(swift[1])
expected = [line.split("#", 1)[1].strip() for line in shell[0].splitlines() if line.startswith("swift run")]
(work / "expected").write_text("\n".join(expected) + "\n")
PY
ln -s "$root" "$work/keel"

# The clone's own keel, as `make build` left it (same settings, so nothing is rebuilt under `make ci`).
"$swift" build --package-path "$root" --product keel >/dev/null
"$root/.build/debug/keel" sandbox serve --port 0 --log-level error >"$work/sandbox-url" &
sandbox_pid=$!
for _ in $(seq 300); do [[ -s $work/sandbox-url ]] && break; sleep 0.1; done
url=$(head -n 1 "$work/sandbox-url")
[[ $url == http://127.0.0.1:* ]] || { echo "readme-package: the Sandbox did not start (got '$url')" >&2; exit 1; }

cd "$work/MyApp"
# A user's build: Keel's strict mode (KEEL_STRICT) is for Keel's own CI, not for a package that depends on it. Only
# this package's build goes without it; unsetting it for the clone's build above would rebuild the clone twice.
env -u KEEL_STRICT "$swift" build
run=0
while IFS= read -r expected; do
  run=$((run + 1))
  actual=$(env -u KEEL_STRICT KEEL_SERVER="$url" "$swift" run --skip-build MyApp)
  if [[ $actual != "$expected" ]]; then
    echo "readme-package: run $run printed '$actual', the README says '$expected'" >&2
    exit 1
  fi
  echo "readme-package: run $run: $actual"
done <"$work/expected"
[[ $run -eq 2 ]] || { echo "readme-package: expected two runs in the README, found $run" >&2; exit 1; }
[[ -d myapp-data ]] || { echo "readme-package: no myapp-data folder: the data directory was not used" >&2; exit 1; }
