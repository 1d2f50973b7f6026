#!/usr/bin/env bash
# Runs a command with the Node.js Webgauge runs on first on PATH (scripts/node-runtime.sh). package.json's scripts go
# through it, so `npm test`, `npm run bench` and the build use that Node whatever Node started npm.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/node-runtime.sh"
WEBGAUGE_NODE_SAID=${WEBGAUGE_NODE_SAID:-quiet} use_node
exec "$@"
