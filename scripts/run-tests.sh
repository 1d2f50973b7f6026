#!/usr/bin/env bash
# The whole suite (npm test; scripts/test.sh sets up first). The files that hold a figure against a truth measured on
# this machine (paint and frame times, the emulated link's phases, the run guard's host readings, the noise of an
# unchanged page, heartbeats half a second apart) run one at a time
# with the machine to themselves; every other file runs two at a time, with the run guard off unless a test turns it
# on (a busy host is what they make, not what they test). Each file is its own process either way.
set -uo pipefail
cd "$(dirname "$0")/.."
alone=(
  test/integration/runner.test.ts      # first paint against the stylesheet's arrival, frames against paints
  test/integration/options.test.ts     # the throttled load's phases and filmstrip
  test/integration/resources.test.ts   # the video's and filmstrip's frames against the report's paints
  test/integration/tls-link.test.ts    # every HAR phase within 10 % + 15 ms of the link's physics
  test/integration/runs.test.ts        # the run guard discards a load while the host is busy
  test/integration/firefox.test.ts     # Firefox's figures against the fixture's truths
  test/integration/journeys.test.ts    # a step's TTFB within its server time + 15 %
  test/integration/gate.test.ts        # an unchanged page's runs against its history: no significant change
  test/integration/remote-agents.test.ts  # agents offline after three missed heartbeats of 0.5 s
)
mapfile -t all < <(find test -name '*.test.ts' | sort)
together=()
for f in "${all[@]}"; do
  [[ " ${alone[*]} " == *" $f "* ]] || together+=("$f")
done
status=0
WEBGAUGE_RUN_GUARD="${WEBGAUGE_RUN_GUARD:-0}" node --import tsx --test --test-concurrency=2 "${together[@]}" || status=1
node --import tsx --test --test-concurrency=1 "${alone[@]}" || status=1
exit $status
