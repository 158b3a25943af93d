# worldprobe — the two commands are `make demo` and `make test`.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/worldprobe
WEB   := web

.PHONY: all setup chromium web build demo test test-slow bench vet fmt clean

all: build

## setup: install what is missing (Debian chromium, vendored npm packages) and build
setup: chromium web build

chromium:
	@if ! command -v chromium >/dev/null 2>&1 && [ -z "$$WORLDPROBE_CHROMIUM" ]; then \
		echo "installing Debian chromium (apt-get)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

# npm ci only when the lockfile changed since the last install.
web: $(WEB)/node_modules/.worldprobe-installed

$(WEB)/node_modules/.worldprobe-installed: $(WEB)/package-lock.json $(WEB)/package.json
	cd $(WEB) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

build:
	$(GO) build -o $(BIN) ./cmd/worldprobe

## demo: inspect the bundled example pages and print where the report is
demo: setup
	@mkdir -p out/demo
	@./$(BIN) inspect --screenshot out/demo examples/*/index.html | tee out/demo/summary.txt; \
	 ./$(BIN) inspect --json examples/*/index.html > out/demo/report.json 2>/dev/null; \
	 echo; echo "report: out/demo/report.json (summary: out/demo/summary.txt, screenshots: out/demo/)"

## test: install what is missing and run every test
test: setup vet
	$(GO) test -count=1 -timeout 15m ./...

## test-slow: the long suites (CPU-load determinism, every corpus world many times)
test-slow: setup
	WORLDPROBE_SLOW=1 $(GO) test -count=1 -timeout 60m ./...

## bench: measure speed (see docs/PERFORMANCE.md)
bench: setup
	./$(BIN) bench

vet:
	@test -z "$$(gofmt -l cmd internal)" || { gofmt -l cmd internal; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

clean:
	rm -rf bin out
