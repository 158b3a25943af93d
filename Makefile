# worldprobe — the two commands are `make demo` and `make test`.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/worldprobe
WEB   := web

.PHONY: all setup chromium ffmpeg espeak-ng postgresql browser-user web build demo demo-full bench-starter check-suite harden check-variants test fuzz test-slow bench vet fmt clean

all: build

## setup: install what is missing (Debian chromium, Debian ffmpeg for XR trial videos, Debian
## espeak-ng for injectAudio's say:, postgresql for the scale-out tests, the browser's system
## user when run as root, vendored npm packages) and build
setup: chromium ffmpeg espeak-ng postgresql browser-user web build

# apt_install PACKAGE installs one Debian package with apt-get (through sudo unless run as
# root): the only way setup installs anything outside Go modules and npm.
apt_install = echo "installing Debian $(1) (apt-get)"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(1) >/dev/null

chromium:
	@if ! command -v chromium >/dev/null 2>&1 && [ -z "$$WORLDPROBE_CHROMIUM" ]; then \
		$(call apt_install,chromium); \
	fi

# ffmpeg (and its ffprobe) encode each XR trial's video (docs/xr.md); without it a trial
# gets a contact sheet instead.
ffmpeg:
	@if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then \
		$(call apt_install,ffmpeg); \
	fi

# espeak-ng speaks the text of an injectAudio step's say: into the page's synthetic
# microphone (docs/audio.md); without it such a step fails as infrastructure.
espeak-ng:
	@if ! command -v espeak-ng >/dev/null 2>&1; then \
		$(call apt_install,espeak-ng); \
	fi

# PostgreSQL's server binaries (initdb, postgres in /usr/lib/postgresql/<v>/bin) for the
# tests of the PostgreSQL store and of River workers (docs/scale-out.md). The tests start
# their own throwaway cluster on a loopback port (internal/pgtest); the package's system
# service is never used.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && [ -z "$$WORLDPROBE_PG_BIN" ]; then \
		$(call apt_install,postgresql); \
	fi

# As root, Chromium's sandbox cannot start, so worldprobe runs the browser as this
# unprivileged system user (no home, no login shell); as anyone else it is not needed.
BROWSER_USER ?= worldprobe-browser
browser-user:
	@if [ "$$(id -u)" = 0 ] && ! id -u $(BROWSER_USER) >/dev/null 2>&1; then \
		echo "creating the system user $(BROWSER_USER) for Chromium's sandbox"; \
		useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin $(BROWSER_USER); \
	fi

# npm ci only when the lockfile changed since the last install.
web: $(WEB)/node_modules/.worldprobe-installed

$(WEB)/node_modules/.worldprobe-installed: $(WEB)/package-lock.json $(WEB)/package.json
	cd $(WEB) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

build:
	$(GO) build -o $(BIN) ./cmd/worldprobe

## demo: judge a representative part of the starter suite in a few minutes: one
## task per category (DEMO_TASKS), its reference as "oracle", its flawed fixtures
## as "fixtures", the pages of two recorded models (examples/demo-gen: gen --replay,
## offline) and one Robust variant of each; print the leaderboard (Core vs. Robust
## V-Cov, RoA/TEM) and where the report is
DEMO_TASKS = application/bar-chart,rendering/fog-depth,simulation/pendulum,xr/pinch-grab
comma := ,
DEMO_TASK_DIRS = $(addprefix suites/starter/,$(subst $(comma), ,$(DEMO_TASKS)))
demo: setup
	rm -rf out/demo out/demo-variants
	@echo "make demo: $(DEMO_TASKS) of the starter suite (references, fixtures, two recorded models, one Robust variant each); make demo-full judges all of it"
	./$(BIN) suite perturb suites/starter --task $(DEMO_TASKS) --variants 1 --seed 1 --out out/demo-variants
	./$(BIN) bench-models $(DEMO_TASK_DIRS) --variants out/demo-variants --oracle --fixtures \
		--model openai/demo-model-a --model anthropic/demo-model-b --replay examples/demo-gen/recordings --out out/demo

## demo-full: the same over every starter task (see docs/PERFORMANCE.md for its time)
demo-full: setup
	rm -rf out/demo-full out/demo-full-variants
	./$(BIN) suite perturb suites/starter --variants 1 --seed 1 --out out/demo-full-variants
	./$(BIN) run suites/starter --variants out/demo-full-variants --oracle --fixtures --out out/demo-full

## bench-starter: the two recorded models of examples/demo-gen over the whole
## starter suite, beside the references: one command from models to leaderboard
## (gen --replay, offline, then run; out/bench-starter/run/report.html)
bench-starter: setup
	rm -rf out/bench-starter
	./$(BIN) bench-models suites/starter --oracle \
		--model openai/demo-model-a --model anthropic/demo-model-b --replay examples/demo-gen/recordings --out out/bench-starter

## check-suite: 'task check' every starter task (reference ×3, fixtures), no mutants
check-suite: setup
	./$(BIN) task check --no-mutants suites/starter

## harden: 'task check' with mutation testing on every starter task at two mutant
## seeds (1, the seed the contracts were hardened against, with alternates and fixtures;
## 7, one they were not, reference and mutants only);
## writes the summary below the marker in docs/hardening.md (slow: about 2 hours a seed
## on 2 cores; each task's report is kept in out/harden/seedN the moment it is checked,
## so running it again resumes)
harden: setup
	./$(BIN) task check --seed 1 --reports out/harden/seed1 suites/starter > /dev/null || true
	./$(BIN) task check --seed 7 --only-mutants --reports out/harden/seed7 suites/starter > /dev/null || true
	./$(BIN) task summarize --out docs/hardening.md out/harden/seed1 out/harden/seed7

## check-variants: write 2 Robust variants of every task with parameters and
## prove each reference passes its contract
check-variants: setup
	rm -rf out/variants
	./$(BIN) suite perturb suites/starter --variants 2 --seed 1 --out out/variants --check

## test: install what is missing and run every test
test: setup vet
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) fuzz FUZZTIME=20000x FUZZ_TARGETS="$(FUZZ_QUICK)"
	$(MAKE) fuzz FUZZTIME=3000x FUZZ_TARGETS="$(FUZZ_QUICK_SLOW)"

## fuzz: run every fuzz target (parsers of task, brief, contract, models and WAV
## files, the CDN URL resolver) for FUZZTIME each ('make test' runs the quick
## ones for 20 000 inputs, 3 000 for the contract parser, which compiles CEL);
## the seed corpora also run as plain tests; a crasher lands in the package's
## testdata/fuzz/ — fix it and commit it as a seed
FUZZTIME ?= 30s
# A count, not a duration: with a duration Go 1.26's fuzz coordinator can fail
# a target with a bare "context deadline exceeded" when the time runs out on a
# loaded machine (golang/go#75804, fixed in Go 1.27); a count has no deadline
FUZZ_QUICK = resolve:FuzzResolve task:FuzzParse task:FuzzRequirements audio:FuzzParseWAV
FUZZ_QUICK_SLOW = contract:FuzzParse
# llm's fuzz build instruments both provider SDKs (minutes on 2 cores): not in 'make test'
FUZZ_TARGETS = $(FUZZ_QUICK) $(FUZZ_QUICK_SLOW) llm:FuzzParseConfig
fuzz: setup
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test ./internal/$$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -parallel 1 || exit 1; \
	done

## test-slow: every test, the slow ones too (WORLDPROBE_SLOW=1: the full check of
## every named starter task; see CONTRIBUTING.md for what each target covers)
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
