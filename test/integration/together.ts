// lane: pairs 15
/**
 * The shared lane: the integration files that load no page and hold nothing against the clock of the machine (their
 * first line says `// lane: shared`; test/helpers/lanes.ts finds them), in one process: each starts its own servers
 * and cleans up after itself, and one process spares each file its own start and module loading (~4.5 s a file). It
 * runs in the two-at-a-time lane of scripts/run-tests.sh, or by itself: node --import tsx --test
 * test/integration/together.ts. One file of the lane still runs alone: node --import tsx --test
 * test/integration/<name>.test.ts
 */
import { resolve } from 'node:path';
import { readLanes } from '../helpers/lanes.js';

for (const f of readLanes().shared) await import(resolve(import.meta.dirname, '../..', f));
