#!/usr/bin/env bash
# The whole suite (npm test; scripts/test.sh sets up first). A file whose figures are held against truths measured on
# this machine (paint and frame times, the emulated link's phases, observed TTI's quiet window behind every score,
# leases and heartbeats, the run guard) runs alone, with the machine to itself. The rest runs two at a time first:
# the unit tests (in one process: test/unit/all.ts), the integration files that load no page, and those that load
# pages but check no timing against a truth (what they check is stored, refused, rendered or restored). A new file
# runs alone unless it is listed here. Each file is its own process, but for those that load no page and run together in
# one (test/integration/together.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
use_node || exit 1
two_at_a_time=(
  # Pages loaded, no timing held against a truth; the longest first, so the two lanes end together.
  test/integration/{web-app,structure-audits,scan-browser,outage,backup,pdf-service,legacy,hostile,cli-accounts,artifacts,lighthouse-versions}.test.ts
  test/unit/all.ts
  test/integration/{store,scans,fuzz,browser-sandbox}.test.ts
  test/integration/together.ts
)
# Files that load no page, run in one process by test/integration/together.ts (each is still its own file to run alone).
together=(
  test/integration/{accounts,agent-protocol,api-start-test,api,connection-guard,hostile-input}.test.ts
  test/integration/{monitoring,openapi,pages-lists,plans,public-url,read-path,secrets-at-rest}.test.ts
  test/integration/{sweep,tags,web-account,web-alerts,web-http,web-pages}.test.ts
  test/integration/scan-schedules.test.ts
  test/integration/scan-alerts.test.ts
)
export WEBGAUGE_TOGETHER="${together[*]}"
mapfile -t all < <(find test/integration -name '*.test.ts' | sort)
alone=()
for f in "${all[@]}"; do
  [[ " ${two_at_a_time[*]} ${together[*]} " == *" $f "* ]] || alone+=("$f")
done
status=0
node --import tsx --test --test-concurrency=2 "${two_at_a_time[@]}" || status=1
node --import tsx --test --test-concurrency=1 "${alone[@]}" || status=1
exit $status
