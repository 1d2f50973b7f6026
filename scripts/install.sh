#!/usr/bin/env bash
# Installs everything Webgauge needs on a Debian machine: its Node.js (this machine's when it is at least 22.19, else
# the pinned LTS brought into .runtime/: scripts/node-runtime.sh), Chromium, Firefox ESR, Xvfb and ffmpeg from apt when
# missing, the npm packages (native ones built for that Node), and the build. Safe to run again: each step is skipped
# when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[webgauge setup]\033[0m %s\n' "$*"; }

source scripts/node-runtime.sh
use_node bring

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

apt_install() {
  say "installing $* with apt"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${WEBGAUGE_APT_UPDATED:-}" ]; then $SUDO apt-get update -qq; export WEBGAUGE_APT_UPDATED=1; fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
chrome="${WEBGAUGE_CHROME_PATH:-/usr/bin/chromium}"
[ -x "$chrome" ] || missing+=(chromium)
# The fonts pages fall back to (and the test site's web font: test/fixtures/site/defects.ts).
[ -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ] || missing+=(fonts-liberation)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
# Firefox (Desktop), the second browser: agents offer it when WEBGAUGE_FIREFOX_PATH (Debian's ESR by default) works.
firefox="${WEBGAUGE_FIREFOX_PATH:-/usr/bin/firefox-esr}"
[ -x "$firefox" ] || missing+=(firefox-esr)
# Firefox draws on a display of its own (Xvfb) that ffmpeg records: its filmstrip and video (WebDriver BiDi has no screencast).
[ -x /usr/bin/Xvfb ] || missing+=(xvfb)
# certutil hands the operator's CA certificates (WEBGAUGE_EXTRA_CA_CERTS) to the test browsers.
command -v certutil >/dev/null 2>&1 || missing+=(libnss3-tools)
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; else say "chromium, firefox-esr, xvfb, ffmpeg and certutil present"; fi

# The browser never runs as root: when the service does, Chromium runs sandboxed as this unprivileged user.
browser_user="${WEBGAUGE_BROWSER_USER:-webgauge-browser}"
if [ "$(id -u)" -eq 0 ] && ! id -u "$browser_user" >/dev/null 2>&1; then
  say "creating the unprivileged user $browser_user for the browser"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$browser_user"
fi

# npm packages: reinstall when package-lock.json, the patches applied to them or the Node.js they were built for (its
# version) changed.
stamp=node_modules/.webgauge-lock-hash
want="$(cat package-lock.json patches/*.patch | sha256sum | cut -d' ' -f1) node-$(node -p process.version)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing npm packages"
  # Browsers come from apt; no package may download its own.
  # --prefer-offline: packages already in npm's cache are not asked of the registry again (the lock file pins them).
  # better-sqlite3 is compiled here (its prebuilt binary is a download from GitHub): JOBS=max lets node-gyp build its
  # two large sources on every core at once.
  JOBS=max PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefer-offline --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
else
  say "npm packages up to date"
fi

say "building"
npm run --silent build
