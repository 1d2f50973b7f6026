#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, on SQLite and on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
source scripts/postgres.sh
ensure_postgres
npm run --silent typecheck
npm test
