#!/usr/bin/env bash
# Builds the .deb from the release binaries with Tauri's bundler (npm's
# prebuilt @tauri-apps/cli, far faster than compiling the CLI), then checks
# it: unpacked into a temporary root, the packaged `switchboard` answers
# --version and delivers into a fresh workspace, and the packaged app (with
# its sidecar beside it) paints its first frame under Xvfb.
# Usage: scripts/package.sh   (after `cargo build --release` of the three binaries)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
TAURI_CLI_VERSION="2.12.5"
log() { printf '\033[1mpackage:\033[0m %s\n' "$*" >&2; }

# Where cargo built the binaries (and Tauri's bundler, which asks cargo,
# puts the package): CARGO_TARGET_DIR when set, relative to the root as
# make runs cargo there.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
for file in switchboard switchboard-app switchboard-sidecar switchboard-session-host; do
  [ -x "$target/release/$file" ] || { log "no $target/release/$file: build the release binaries first"; exit 1; }
done

cli="$root/target/tauri-cli/node_modules/.bin/tauri"
if [ ! -x "$cli" ] || [ "$("$cli" --version)" != "tauri-cli $TAURI_CLI_VERSION" ]; then
  log "installing @tauri-apps/cli $TAURI_CLI_VERSION (prebuilt) from npm"
  npm install --prefix "$root/target/tauri-cli" --no-audit --no-fund --silent \
    "@tauri-apps/cli@$TAURI_CLI_VERSION"
fi
rm -rf "$target/release/bundle/deb"
# Tauri's bundler takes its project folder to be the one holding both
# tauri.conf.json and the app crate's Cargo.toml [package] (at the root it
# stops with "No package info in the config file"; TAURI_APP_PATH=src-tauri
# wants a tauri.conf.json inside). The config lives at the root, as the
# design card lays it out: a link in src-tauri stands in while bundling, and
# the paths the config holds are re-rooted for it (they resolve from the
# link's folder).
link="$root/src-tauri/tauri.conf.json"
ln -sfn ../tauri.conf.json "$link"
rerooted="$(node -e '
  const config = require(process.argv[1]);
  const up = (path) => "../" + path;
  const files = config.bundle.linux.deb.files;
  for (const key of Object.keys(files)) files[key] = up(files[key]);
  console.log(JSON.stringify({bundle: {icon: config.bundle.icon.map(up), linux: {deb: {files}}}}));
' "$root/tauri.conf.json")"
status=0
(cd "$root/src-tauri" && "$cli" bundle --bundles deb --config "$rerooted") || status=$?
rm -f "$link"
[ "$status" -eq 0 ] || exit "$status"
deb="$(ls "$target"/release/bundle/deb/*.deb)"
# Tauri's bundler gzips the payload; xz (Debian's own default) makes the
# package about half as big, for the same files (the three binaries share
# much code, which xz's large window finds across files).
repack="$(mktemp -d)"
dpkg-deb -R "$deb" "$repack/package"
dpkg-deb --root-owner-group -Zxz -z9 -b "$repack/package" "$deb" > /dev/null
rm -rf "$repack"
log "$(basename "$deb"): $(stat -c %s "$deb") bytes"

log "checking $deb"
scratch="$(mktemp -d)"
app_pid=""
# The app runs in a session of its own (setsid): stopping that process group
# stops xvfb-run, its Xvfb, the bus, the app and WebKit's processes alike.
cleanup() {
  if [ -n "$app_pid" ]; then
    kill -TERM -- "-$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
dpkg-deb -x "$deb" "$scratch/root"
bin="$scratch/root/usr/bin"
for file in switchboard switchboard-app switchboard-sidecar switchboard-session-host; do
  [ -x "$bin/$file" ] || { log "the package has no /usr/bin/$file"; exit 1; }
done
[ -f "$scratch/root/usr/share/applications/Switchboard.desktop" ] || { log "no desktop entry"; exit 1; }
"$bin/switchboard" --version
mkdir -p "$scratch/workspace" "$scratch/config"
id="$("$bin/switchboard" -C "$scratch/workspace" deliver --title "Packaged" --content "from the packaged CLI")"
"$bin/switchboard" -C "$scratch/workspace" show "$id" > /dev/null
log "delivered $id with the packaged CLI"

# The packaged app, on a private display and bus, to its first paint.
NO_AT_BRIDGE=1 setsid xvfb-run -a dbus-run-session -- "$bin/switchboard-app" "$scratch/workspace" \
  --config-dir "$scratch/config" > "$scratch/app.log" 2>&1 &
app_pid=$!
for _ in $(seq 1 600); do
  grep -q "first paint" "$scratch/app.log" && break
  kill -0 "$app_pid" 2>/dev/null || { cat "$scratch/app.log"; log "the packaged app exited"; exit 1; }
  sleep 0.1
done
grep "first paint" "$scratch/app.log" || { cat "$scratch/app.log"; log "no first paint within 60 s"; exit 1; }
log "ok: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
