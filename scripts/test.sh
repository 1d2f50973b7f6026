#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, on SQLite and on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# The Node.js install.sh chose (or brought): everything below runs on it.
source scripts/node-runtime.sh
use_node
# The suite alone reads PDFs as text (pdftotext: a report.pdf must give no test secret away).
if ! command -v pdftotext >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "[webgauge test] installing poppler-utils (pdftotext) for the tests"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null 2>&1 ||
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null; } ||
    echo "[webgauge test] poppler-utils could not be installed: the PDF secret check reads the PDF's bytes only" >&2
fi
source scripts/postgres.sh
ensure_postgres
# install.sh's build has just compiled the service and the web client (a type error fails it); what is left to check
# is the tests' and benchmarks' configuration (tsconfig.test.json, sources included). `npm run typecheck` does all three.
npx tsc -p tsconfig.test.json --noEmit
# The tests start the `webgauge` command from install.sh's fresh build (test/helpers/webgauge-command.ts).
export WEBGAUGE_TEST_BUILT=1
npm test
