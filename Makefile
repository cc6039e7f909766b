# Switchboard's two commands, and the steps they are made of.
#   make run [WORKSPACE=path]   set up, build and open the window on a workspace
#   make test                   set up, then every check and test, e2e included
#   make bench                  release build, then the benchmark tables
#   make package                .deb in $CARGO_TARGET_DIR (else target)/release/bundle/deb, then checked
#   make install [PREFIX=/usr/local]  release build; switchboard, switchboard-app
#                               switchboard-sidecar and switchboard-session-host into PREFIX/bin
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)

WORKSPACE ?= $(CURDIR)
CARGO ?= cargo
# A clean CI build is built once: incremental caches would only fill the
# disk (they were over half of target/ there).
ifneq ($(CI),)
export CARGO_INCREMENTAL := 0
endif
# The UI is compiled to wasm32 (`make ui`); every native cargo step leaves it out.
NATIVE := --workspace --exclude switchboard-ui
BINS := -p switchboard-app -p switchboard-cli -p switchboard-sidecar -p switchboard-session

PREFIX ?= /usr/local
# Where cargo puts what it builds, as cargo itself decides.
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

.PHONY: package setup-package setup-release install run test bench setup setup-test ui ui-release build lint wasm-check unit screenshot clean

run: setup ui build
	$(TARGET_DIR)/debug/switchboard-app "$(WORKSPACE)"

test: setup-test ui lint wasm-check build unit

bench: setup-test ui-release
	$(CARGO) build --release $(BINS)
	$(CARGO) bench -p switchboard-e2e --bench window
	$(CARGO) bench -p switchboard-e2e --bench inbox
	$(CARGO) bench -p switchboard-e2e --bench footprint
	$(CARGO) bench -p switchboard-e2e --bench agents
	$(CARGO) bench -p switchboard-e2e --bench launches
	$(CARGO) bench -p switchboard-e2e --bench everywhere
	$(CARGO) bench -p switchboard-e2e --bench browser
	$(CARGO) bench -p switchboard-e2e --bench serve
	$(CARGO) bench -p switchboard-e2e --bench remote
	$(CARGO) bench -p switchboard-sidecar --bench prompt
	$(CARGO) bench -p switchboard-sidecar --bench ttft
	$(CARGO) bench -p switchboard-store --bench knowledge
	$(CARGO) bench -p switchboard-store --bench team
	$(CARGO) bench -p switchboard-store --bench worktrees
	$(CARGO) bench -p switchboard-store --bench tapes
	$(CARGO) bench -p switchboard-cli --bench mcp
	$(CARGO) bench -p switchboard-cli --bench tapes
	$(CARGO) bench -p switchboard-cli --bench hooks
	$(CARGO) bench -p switchboard-cli --bench http
	$(CARGO) bench -p switchboard-session --bench sessions
	$(CARGO) bench -p switchboard-probe --bench probe

setup:
	scripts/setup.sh run

# Tauri's bundler on the release binaries; the script checks the package.
package: setup-package ui-release
	$(CARGO) build --release $(BINS)
	scripts/package.sh

# The three binaries side by side on PATH: the CLI finds the app
# (`switchboard open`) and the app its sidecar next to themselves.
install: setup ui-release
	$(CARGO) build --release $(BINS)
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 $(TARGET_DIR)/release/switchboard $(TARGET_DIR)/release/switchboard-app \
		$(TARGET_DIR)/release/switchboard-sidecar $(TARGET_DIR)/release/switchboard-session-host \
		"$(DESTDIR)$(PREFIX)/bin/"
	@echo "installed into $(DESTDIR)$(PREFIX)/bin: switchboard, switchboard-app, switchboard-sidecar, switchboard-session-host"

setup-test:
	scripts/setup.sh test

setup-package:
	scripts/setup.sh package

setup-release:
	scripts/setup.sh release

# The shell embeds ui/dist at compile time, so the UI is built first: its
# wasm by cargo (the `ui` profile: sized, not sped), then the page by
# tools/ui-build (wasm-bindgen's library at the lockfile's version, the
# styles and boot script put in the page).
UI_WASM := $(TARGET_DIR)/wasm32-unknown-unknown/ui/switchboard-ui.wasm
ui:
	$(CARGO) build -p switchboard-ui --target wasm32-unknown-unknown --profile ui
	$(CARGO) run -q -p switchboard-ui-build -- $(UI_WASM) ui/dist

# The shipped UI: the same page, its module shrunk by binaryen's wasm-opt
# (npm's binaryen; Debian's wasm-opt is broken).
ui-release: setup-release
	$(CARGO) build -p switchboard-ui --target wasm32-unknown-unknown --profile ui
	$(CARGO) run -q -p switchboard-ui-build -- $(UI_WASM) ui/dist \
		--wasm-opt $(CURDIR)/target/binaryen/node_modules/.bin/wasm-opt

build:
	$(CARGO) build $(BINS)

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy $(NATIVE) --all-targets -- -D warnings
	$(CARGO) clippy -p switchboard-ui --target wasm32-unknown-unknown -- -D warnings
	$(CARGO) clippy -p switchboard-ui --lib --tests -- -D warnings

wasm-check:
	$(CARGO) check -p switchboard-model --target wasm32-unknown-unknown

# The UI's parts that compute (not draw) are tested natively too.
unit:
	$(CARGO) test $(NATIVE)
	$(CARGO) test -p switchboard-ui --lib

# Copies the screenshots the e2e run saved into the places README.md and docs/ show them.
screenshot:
	cp target/e2e/inbox.png docs/screenshot.png
	cp target/e2e/chat-memory.png docs/chat.png

clean:
	$(CARGO) clean
	rm -rf ui/dist
