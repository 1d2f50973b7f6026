// lane: pairs 120
/**
 * Every unit test file in one process (scripts/run-tests.sh): they load no page and share no state, and one
 * process compiles the sources once instead of once a file (about 20 s of the suite). A single file still runs
 * on its own: node --import tsx --test test/unit/<path>.test.ts
 *
 * Where a unit test lives (a newcomer looks for the test of src/<path>.ts at test/unit/<path>.test.ts):
 * - The test of a module is test/unit/<its path under src>.test.ts: src/analysis/site-figures.ts is tested in
 *   test/unit/analysis/site-figures.test.ts, src/config.ts in test/unit/config.test.ts.
 * - A folder whose files are the parts of one thing, tested as one (its rules through its index.ts, or its parts scored
 *   together), is tested at the folder's path: src/analysis/structure/ in test/unit/analysis/structure.test.ts,
 *   src/analysis/legacy/pagespeed/ in test/unit/analysis/legacy/pagespeed.test.ts.
 * - Tests of several modules are split along them, each to its module's file, when each describe is one module's and
 *   they share no set-up. When they share their set-up (a recording, a scan and its pages, a stub server) or follow one
 *   feature through its layers, the file sits at its main module and its header names the others
 *   (core/options/journey.test.ts, gate/scan.test.ts, core/tests/runs.test.ts); so does a single check of another
 *   module inside a describe (core/options/options.test.ts checks urlPatternMatches of runner/conditions/).
 * - Tests of the project rather than of one module sit at the top of test/unit/, named for what they hold to:
 *   dependencies.test.ts (the import rules over src/), docs.test.ts (the docs against the code), fixture-site.test.ts
 *   (the fixture site's own figures that benches and tests rely on).
 * - Only *.test.ts files and this runner live here: what tests share is in test/helpers/, what they run against
 *   (sites, hand-built inputs, recorded results) in test/fixtures/.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const dir = new URL('.', import.meta.url).pathname;
const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts')).sort();
// A file that fails to load (a bad import, a throw at its top level) is a failed test named for it, and the files
// after it still run: an await that threw here used to end the loop, and the run passed with fewer tests.
for (const f of files) {
  try {
    await import(join(dir, f));
  } catch (err) {
    test(`test/unit/${f} loads`, () => { throw err; });
  }
}
