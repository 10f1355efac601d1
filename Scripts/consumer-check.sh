#!/usr/bin/env bash
# Proves that an app depending on Keel for its app-side products resolves and builds none of the server-side packages
# (Documentation/Decisions/0009). A package outside this repository, beside a folder named `keel` that is this clone,
# depends on Keel with `traits: []` and has one target on each of Domain, Chat and ReducerRuntime. It must build, and
# its Package.resolved must pin none of the server-side packages. The same package with Keel's default traits must pin
# them, so that the check is seen to be able to fail.
# Usage: Scripts/consumer-check.sh (from the repository root; `make consumers`).
#
# Its packages go beside the README's package that Scripts/readme-package.sh (the step before it in `make ci`) built on
# the same clone, and the app's is built into that package's build folder: Keel's app modules are compiled once for
# both (what each package resolves is its own). Run alone, it builds them itself. Either way the folder goes at the end.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
work="${TMPDIR:-/tmp}/keel-outside-packages-$(cksum <<<"$root" | cut -d' ' -f1)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
ln -sfn "$root" "$work/keel"
rm -rf "$work/app" "$work/defaults"
server_packages="hummingbird hummingbird-websocket swift-websocket async-http-client postgres-nio swift-nio swift-nio-ssl"
server_packages+=" swift-nio-extras swift-argument-parser swift-service-lifecycle swift-http-types"

# consumer DIR TRAITS: a package in $work/DIR whose dependency on the clone says TRAITS (`, traits: []` or nothing).
consumer() {
  local dir=$work/$1
  mkdir -p "$dir/Sources/UsesDomain" "$dir/Sources/UsesChat" "$dir/Sources/UsesRuntime"
  cat >"$dir/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [.package(path: "../keel"$2)],
  targets: [
    .target(name: "UsesDomain", dependencies: [.product(name: "Domain", package: "Keel")]),
    .target(name: "UsesChat", dependencies: [.product(name: "Chat", package: "Keel")]),
    .target(name: "UsesRuntime", dependencies: [.product(name: "ReducerRuntime", package: "Keel")]),
  ]
)
SWIFT
  printf 'import Domain\n\npublic typealias Users = UserManager\n' >"$dir/Sources/UsesDomain/Uses.swift"
  printf 'import Chat\n\npublic typealias Conversations = ChatService\n' >"$dir/Sources/UsesChat/Uses.swift"
  printf 'import ReducerRuntime\n\npublic typealias Screens = Store<Int, Int>\n' >"$dir/Sources/UsesRuntime/Uses.swift"
}

# The pins of a resolved package, one identity a line.
pins() { python3 -c 'import json,sys; print("\n".join(p["identity"] for p in json.load(open(sys.argv[1]))["pins"]))' "$1"; }

# An app's package: Keel's default traits off. Built as a user would (Keel's strict mode is for Keel's own CI).
consumer app ", traits: []"
scratch=$work/app/.build
[[ -d $work/MyApp/.build ]] && scratch=$work/MyApp/.build
env -u KEEL_STRICT "$swift" build --package-path "$work/app" --scratch-path "$scratch"
found=$(pins "$work/app/Package.resolved" | grep -x -F -f <(tr ' ' '\n' <<<"$server_packages") || true)
if [[ -n $found ]]; then
  echo "consumer-check: a package on Domain, Chat and ReducerRuntime with traits: [] resolves server-side packages:" \
    $found >&2
  exit 1
fi
echo "consumer-check: Domain, Chat and ReducerRuntime build with traits: []; resolved: $(pins "$work/app/Package.resolved" | tr '\n' ' ')"

# The same package with the default traits (the Server trait on) resolves them: the check above can fail.
consumer defaults ""
env -u KEEL_STRICT "$swift" package resolve --package-path "$work/defaults" >/dev/null
# (`grep -q` would stop reading at the first match and break the pipe under pipefail; the whole list is read.)
pins "$work/defaults/Package.resolved" | grep -x hummingbird >/dev/null || {
  echo "consumer-check: with Keel's default traits the package should resolve Hummingbird, and does not" >&2
  exit 1
}
echo "consumer-check: with the default traits, the same package resolves the server-side packages (as it should)"
