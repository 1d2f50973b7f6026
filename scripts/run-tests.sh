#!/usr/bin/env bash
# The whole suite (npm test; scripts/test.sh sets up first), in three lanes. Each test file says on its first line
# which lane it runs in; test/helpers/lanes.ts reads them, and a file that says none (or a lane it does not know) stops
# the run at once, naming the file and the lanes to choose from: no hand list here to forget a new file in.
#
#   // lane: alone     A file whose figures are held against truths measured on this machine (paint and frame times,
#                      the emulated link's phases, observed TTI's quiet window behind every score, leases and
#                      heartbeats, the run guard) runs alone, after the rest, with the machine to itself.
#   // lane: pairs N   Files that load pages but hold no timing against a truth (what they check is stored, refused,
#                      rendered or restored) run first, two at a time, each its own process, beside the two runners
#                      of many files: the unit tests (test/unit/all.ts) and the shared lane
#                      (test/integration/together.ts). N orders the lane, the longest first, so that the two workers
#                      end together; the numbers go ten apart, so a new file takes a number between two others by
#                      its own time.
#   // lane: shared    Files that load no page run in one process (test/integration/together.ts, itself in the pairs
#                      lane), sparing each its own start and module loading; each still runs alone by name.
#
# One file alone: node --import tsx --test test/integration/<name>.test.ts (test/unit/<path>.test.ts).
# WEBGAUGE_TEST_LANES=print bash scripts/run-tests.sh prints the three lanes, in the order they run, and runs nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
use_node || exit 1
declared="$(node --import tsx test/helpers/lanes.ts)" || exit 1
alone=() pairs=() shared=()
while IFS=$'\t' read -r lane file; do
  case "$lane" in
    alone) alone+=("$file") ;;
    pairs) pairs+=("$file") ;;
    shared) shared+=("$file") ;;
  esac
done <<<"$declared"
if [ "${WEBGAUGE_TEST_LANES:-}" = print ]; then
  printf 'pairs (two at a time, in this order):\n'; printf '  %s\n' "${pairs[@]}"
  printf 'shared (one process, test/integration/together.ts):\n'; printf '  %s\n' "${shared[@]}"
  printf 'alone (one after another, after the pairs):\n'; printf '  %s\n' "${alone[@]}"
  exit 0
fi
status=0
node --import tsx --test --test-concurrency=2 "${pairs[@]}" || status=1
node --import tsx --test --test-concurrency=1 "${alone[@]}" || status=1
exit $status
