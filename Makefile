# One entry per habit. `make ci` is what .ci/run runs, a step at a time; it sets KEEL_STRICT=1 (warnings are errors in
# Keel's targets).
SWIFT ?= swift
MODULES := RateLimiting Networking NIOTransports PostgresLimits Realtime Persistence Domain Chat ReducerRuntime Features FeaturesTesting KeelUI Sandbox
SOURCES := Package.swift Modules Tests Benchmarks Examples Fuzz
SYMBOL_GRAPHS := .build/symbol-graphs
comma := ,

.PHONY: build test limits-proof tsan lint format docs samples bench bench-quick demo examples readme-package consumers apple-imports fuzz peers browser browser-test console-screenshot ci ci-steps

build:
	$(SWIFT) build --build-tests

# A Python virtual environment with an independent peer's packages, every version pinned: $(1) the variable that names
# another Python to use instead, $(2) its folder, $(3) the modules whose import tells that it is installed, $(4) the
# requirements file, $(5) the package whose version it prints. A test that finds none makes it the same way.
define python-environment
	@if [ -n "$$$(1)" ]; then echo "$@: $$$(1) ($(1))"; exit 0; fi; \
	if ! $(2)/bin/python3 -c "import $(3)" 2>/dev/null; then \
	  python3 -m venv $(2) && \
	  $(2)/bin/python3 -m pip install --quiet --disable-pip-version-check -r $(4); \
	fi; \
	$(2)/bin/python3 -c "import importlib.metadata as m; print('$@: $(5)', m.version('$(5)'))"
endef

# python-socketio, the independent Socket.IO server the realtime tests, the CLI's contract tests and keel-bench run
# against.
peers:
	$(call python-environment,KEEL_PEERS_PYTHON,.venv-peers,socketio$(comma) aiohttp,Tests/Peers/requirements.txt,python-socketio)

# Playwright for Python, which drives Debian's Chromium (`apt-get install chromium`; .ci/run installs it) in the
# console's browser tests.
browser:
	$(call python-environment,KEEL_BROWSER_PYTHON,.venv-browser,playwright.sync_api,Tests/Browser/requirements.txt,playwright)

# The console in Chromium (Tests/RealtimeTests/SandboxConsoleBrowserTests.swift): alone, after `test` (whose build it
# uses), because it times the page; `swift test` skips it without KEEL_BROWSER_TEST=1.
browser-test: browser
	KEEL_BROWSER_TEST=1 $(SWIFT) test --skip-build --filter SandboxConsoleBrowserTests

# The console's picture in the Sandbox guide, Documentation/Images/sandbox-console.png: `keel sandbox serve` with some
# traffic and a fault (no rate limits: a picture of 429s says little), in Chromium at 1280 pixels wide.
console-screenshot: browser
	$(SWIFT) build --product keel
	@set -e; key=$$(python3 -c 'import secrets; print(secrets.token_hex(16))'); \
	out=$$(mktemp); $$($(SWIFT) build --show-bin-path)/keel sandbox serve --port 0 --no-rate-limit --control-key $$key >$$out 2>/dev/null & \
	pid=$$!; trap 'kill $$pid; rm -f $$out' EXIT; \
	for i in $$(seq 100); do [ -s $$out ] && break; sleep 0.1; done; \
	mkdir -p Documentation/Images; \
	.venv-browser/bin/python3 Tests/Browser/console_browser.py screenshot --base $$(head -1 $$out | sed 's:/$$::') \
	  --key $$key --chromium $${KEEL_CHROMIUM:-/usr/bin/chromium} --out Documentation/Images/sandbox-console.png

test:
	$(SWIFT) test

# The shared limit's proof (REQUIREMENTS L2): processes through one PostgreSQL store against a Sandbox allowing one
# POST a second, measured from the server's side. Alone, after `test` (whose build it uses), because it times what
# the server sees to the millisecond; `swift test` skips it without KEEL_LIMIT_PROOF=1.
limits-proof:
	KEEL_LIMIT_PROOF=1 $(SWIFT) test --skip-build --filter SharedLimitCommandTests

# The tests under ThreadSanitizer; Scripts/tsan.sh says how (every report judged after the run, at most TSAN_WIDTH
# tests at once, one retry for the Swift runtime's own crash, never for a race or a failed test).
TSAN_WIDTH ?= 4
tsan:
	SWIFT=$(SWIFT) TSAN_WIDTH=$(TSAN_WIDTH) bash Scripts/tsan.sh

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)

# The imports of the code only Apple platforms compile (never built here): each an Apple SDK module or its target's.
apple-imports:
	python3 Scripts/check-apple-imports.py --self-test
	python3 Scripts/check-apple-imports.py

format:
	$(SWIFT) format --in-place --recursive $(SOURCES)

# One DocC archive per module in .build/docs/<Module>.doccarchive (warnings are errors), then `docc merge` combines
# them into one site in .build/docs/Keel.
# The dump also tries the synthesized test-runner modules, which exist only after `swift build --build-tests`, and
# exits 1 without them; so its status is not trusted, and instead every module's own graph must be there afresh.
# A module's graphs are <Module>.symbols.json and its extensions of other modules' types (<Module>@Other, such as
# ReducerRuntime's `Collection[safe:]`, shown thanks to extension block symbols): a wider glob would hand Features the
# FeaturesTesting graph too.
docs:
	@rm -rf .build/*/symbolgraph .build/docs && mkdir -p .build/docs $(SYMBOL_GRAPHS)
	$(SWIFT) package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols \
	  >$(SYMBOL_GRAPHS)/dump.log 2>&1 || \
	  echo "docs: the dump reported errors (see $(SYMBOL_GRAPHS)/dump.log); checking each module's graph"
	@for module in $(MODULES); do \
	  rm -rf $(SYMBOL_GRAPHS)/$$module && mkdir -p $(SYMBOL_GRAPHS)/$$module && \
	  { cp .build/*/symbolgraph/$$module.symbols.json $(SYMBOL_GRAPHS)/$$module/ || \
	    { echo "docs: no symbol graph for $$module; see $(SYMBOL_GRAPHS)/dump.log" >&2; exit 1; }; } && \
	  for graph in .build/*/symbolgraph/$$module@*.symbols.json; do \
	    if [ -e "$$graph" ]; then cp "$$graph" $(SYMBOL_GRAPHS)/$$module/; fi; \
	  done && \
	  docc convert Modules/$$module/$$module.docc --warnings-as-errors \
	    --additional-symbol-graph-dir $(SYMBOL_GRAPHS)/$$module --output-path .build/docs/$$module.doccarchive \
	    --fallback-display-name $$module --fallback-bundle-identifier dev.keel.$$module && \
	  echo "docs: .build/docs/$$module.doccarchive" || exit 1; \
	done
	docc merge $(MODULES:%=.build/docs/%.doccarchive) --output-path .build/docs/Keel \
	  --synthesized-landing-page-name Keel --synthesized-landing-page-kind Package
	@echo "docs: .build/docs/Keel, one site for every module (serve the folder, open /documentation/)"

# libFuzzer over the import parsers and the Sandbox's request handling (Fuzz/KeelFuzz): a build with
# -sanitize=fuzzer,address in its own build folder, then FUZZ_SECONDS of fuzzing from the seeds in Fuzz/Seeds. A crash
# is saved as .build/fuzz/artifacts/crash-<hash>; replay it with `swift run KeelFuzz FILE` and make it a unit test.
FUZZ_SECONDS ?= 60
fuzz:
	$(SWIFT) build --product KeelFuzz --build-path .build/fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DKEEL_FUZZING
	rm -rf .build/fuzz/corpus .build/fuzz/artifacts && mkdir -p .build/fuzz/corpus .build/fuzz/artifacts
	cp Fuzz/Seeds/* .build/fuzz/corpus/
	.build/fuzz/debug/KeelFuzz .build/fuzz/corpus -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
	  -artifact_prefix=.build/fuzz/artifacts/ -print_final_stats=1

bench:
	$(SWIFT) run -c release keel-bench

# Every keel-bench row once, with few iterations, in the debug build CI already has: a row that breaks fails CI. Its
# numbers mean nothing (a debug build); `make bench` measures.
bench-quick:
	$(SWIFT) run keel-bench --quick

demo:
	$(SWIFT) run keel demo

examples:
	$(SWIFT) run UserManagerExample
	$(SWIFT) run TokenRefreshExample
	$(SWIFT) run EventTrackingExample
	$(SWIFT) run ImageCacheExample
	$(SWIFT) run UserSearchFeatureExample
	$(SWIFT) run ChatExample

# Every Swift sample of the README, the guides, the DocC catalogs and the doc comments, type-checked as written, each on
# its own, against the modules `make build` produced (Scripts/check-samples.py says how).
samples:
	SWIFTC=$(SWIFT)c python3 Scripts/check-samples.py

# The README's "library in your own package" sample, built and run twice as a user would, outside this repository.
readme-package:
	SWIFT=$(SWIFT) bash Scripts/readme-package.sh

# A package outside the repository on Domain, Chat and ReducerRuntime with `traits: []` builds and resolves no
# server-side package (Documentation/Decisions/0009).
consumers:
	SWIFT=$(SWIFT) bash Scripts/consumer-check.sh

# What `make ci` runs, in this order. .ci/run runs them one at a time and says how long each took.
CI_STEPS := build peers browser samples test limits-proof browser-test examples readme-package consumers bench-quick tsan lint apple-imports docs fuzz

ci: export KEEL_STRICT = 1
ci: $(CI_STEPS)

ci-steps:
	@echo $(CI_STEPS)
