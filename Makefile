# One entry per habit. `make ci` is what .ci/run runs; it sets KEEL_STRICT=1 (warnings are errors in Keel's targets).
SWIFT ?= swift
MODULES := RateLimiting Networking Persistence Domain Features FeaturesTesting Sandbox
SOURCES := Package.swift Modules Tests Benchmarks Examples
SYMBOL_GRAPHS := .build/symbol-graphs

.PHONY: build test tsan lint format docs bench demo examples ci

build:
	$(SWIFT) build --build-tests

test:
	$(SWIFT) test

tsan:
	$(SWIFT) test --sanitize=thread --build-path .build/tsan

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)

format:
	$(SWIFT) format --in-place --recursive $(SOURCES)

docs:
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	@for module in $(MODULES); do \
	  rm -rf $(SYMBOL_GRAPHS)/$$module && mkdir -p $(SYMBOL_GRAPHS)/$$module .build/docs && \
	  cp .build/*/symbolgraph/$$module*.symbols.json $(SYMBOL_GRAPHS)/$$module/ && \
	  docc convert Modules/$$module/$$module.docc --warnings-as-errors \
	    --additional-symbol-graph-dir $(SYMBOL_GRAPHS)/$$module --output-path .build/docs/$$module \
	    --fallback-display-name $$module --fallback-bundle-identifier dev.keel.$$module && \
	  echo "docs: .build/docs/$$module" || exit 1; \
	done

bench:
	$(SWIFT) run -c release keel-bench

demo:
	$(SWIFT) run keel demo

examples:
	$(SWIFT) run UserManagerExample
	$(SWIFT) run TokenRefreshExample
	$(SWIFT) run EventTrackingExample
	$(SWIFT) run ImageCacheExample
	$(SWIFT) run UserSearchFeatureExample

ci: export KEEL_STRICT = 1
ci: build test examples tsan lint docs
