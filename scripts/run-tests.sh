#!/usr/bin/env bash
# The whole suite (npm test; scripts/test.sh sets up first). A file that loads a page in a browser runs alone, with
# the machine to itself: its figures are held against truths measured on this machine (paint and frame times, the
# emulated link's phases, observed TTI's quiet window behind every score, leases and heartbeats, the run guard). The
# unit tests and the integration files that load no page run two at a time first. A new file runs alone unless it is
# listed here. Each file is its own process either way.
set -uo pipefail
cd "$(dirname "$0")/.."
two_at_a_time=(
  $(find test/unit -name '*.test.ts' | sort)
  test/integration/{accounts,agent-protocol,api-start-test,api,cli-accounts,connection-guard,hostile-input}.test.ts
  test/integration/{monitoring,openapi,pages-lists,pdf-service,plans,public-url,read-path,secrets-at-rest}.test.ts
  test/integration/{sweep,tags,web-account,web-alerts,web-http,web-pages}.test.ts
)
mapfile -t all < <(find test -name '*.test.ts' | sort)
alone=()
for f in "${all[@]}"; do
  [[ " ${two_at_a_time[*]} " == *" $f "* ]] || alone+=("$f")
done
status=0
node --import tsx --test --test-concurrency=2 "${two_at_a_time[@]}" || status=1
node --import tsx --test --test-concurrency=1 "${alone[@]}" || status=1
exit $status
