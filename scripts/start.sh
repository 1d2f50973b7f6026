#!/usr/bin/env bash
# Set up (if needed) and start Webgauge on the embedded default: SQLite and files under ./data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/node-runtime.sh
use_node
exec node dist/main.js serve "$@"
