/**
 * The lanes of the whole suite (scripts/run-tests.sh, whose header says why each lane exists), as each file declares
 * its own on its first line:
 *
 *   // lane: alone       figures held against truths measured on this machine: it runs with the machine to itself
 *   // lane: pairs N     pages loaded but no timing held against a truth: two files at a time, N the file's place
 *   // lane: shared      no page loaded: in the one shared process, test/integration/together.ts
 *
 * Every .test.ts file under test/integration declares one, and so do the two runners that run in the two-at-a-time
 * lane (test/unit/all.ts, every unit test; test/integration/together.ts, the shared lane). A file without a lane line, or
 * with a lane this does not know, fails the run at once, naming the file and the lanes: a new file cannot be forgotten.
 *
 * The two-at-a-time lane runs in the order of N, the longest file first, so that its two workers end together; the
 * numbers go ten apart, so a new file takes a number between two others by its time (`node --import tsx --test FILE`
 * says it). The other lanes run in the order of their paths.
 *
 * `node --import tsx test/helpers/lanes.ts` prints each file's lane, one `LANE<tab>PATH` a line in the order it runs,
 * for scripts/run-tests.sh; on a file without a lane it prints why to stderr and exits 1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LANES = ['alone', 'pairs', 'shared'] as const;
export type Lane = (typeof LANES)[number];

/** The two runners that run in the two-at-a-time lane beside the files, each a process of many files. */
export const RUNNERS = ['test/unit/all.ts', 'test/integration/together.ts'];

const ROOT = resolve(import.meta.dirname, '../..');

const CHOICES = [
  '  // lane: alone      holds a figure against a truth measured on this machine (times of paint, frames, the emulated',
  '                      link, leases, the run guard): runs with the machine to itself',
  '  // lane: pairs N    loads pages but holds no timing against a truth: two files at a time, in the order of N',
  '                      (the longest first, ten apart: give a number between the files as long as it)',
  '  // lane: shared     loads no page: runs in the one shared process, test/integration/together.ts',
].join('\n');

export class LaneError extends Error {}

export interface Lanes {
  /** Each alone, one after another, in the order of their paths. */
  alone: string[];
  /** Two at a time, in the order of their numbers (the runners among them). */
  pairs: string[];
  /** In one process (together.ts), in the order of their paths. */
  shared: string[];
}

/** The lane a file's first line declares, or why it declares none. */
export function laneOf(firstLine: string): { lane: Lane; order?: number } | { problem: string } {
  const m = /^\/\/ lane:\s*(\S+)(?:\s+(\S+))?\s*$/.exec(firstLine);
  if (!m) return { problem: 'its first line declares no lane' };
  const lane = m[1] as Lane;
  if (!LANES.includes(lane)) return { problem: `"${m[1]}" is not a lane` };
  if (lane === 'pairs') {
    if (m[2] === undefined || !/^\d+$/.test(m[2])) {
      return { problem: 'the pairs lane takes a whole number, the place of the file in the lane: // lane: pairs N' };
    }
    return { lane, order: Number(m[2]) };
  }
  if (m[2] !== undefined) return { problem: `only the pairs lane takes a number ("${m[2]}")` };
  return { lane };
}

/** The integration test files, relative to the repository, in the order of their paths. */
function integrationTests(): string[] {
  const dir = join(ROOT, 'test/integration');
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts'))
    .map((f) => relative(ROOT, join(dir, f))).sort();
}

/** Every file's lane; a LaneError naming each file that declares none (or one unknown), with the lanes to choose from. */
export function readLanes(): Lanes {
  const lanes: Lanes = { alone: [], pairs: [], shared: [] };
  const pairs: { path: string; order: number }[] = [];
  const problems: string[] = [];
  for (const path of [...integrationTests(), ...RUNNERS]) {
    const declared = laneOf(readFileSync(join(ROOT, path), 'utf8').split('\n', 1)[0]!);
    if ('problem' in declared) problems.push(`${path}: ${declared.problem}`);
    else if (RUNNERS.includes(path) && declared.lane !== 'pairs') problems.push(`${path}: a runner runs in the pairs lane`);
    else if (declared.lane === 'pairs') pairs.push({ path, order: declared.order! });
    else lanes[declared.lane].push(path);
  }
  if (problems.length > 0) {
    throw new LaneError(`${problems.join('\n')}\nEach test file says on its first line which lane it runs in:\n${CHOICES}`);
  }
  lanes.pairs = pairs.sort((a, b) => a.order - b.order || (a.path < b.path ? -1 : 1)).map((p) => p.path);
  return lanes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const lanes = readLanes();
    for (const lane of LANES) for (const path of lanes[lane]) process.stdout.write(`${lane}\t${path}\n`);
  } catch (err) {
    if (!(err instanceof LaneError)) throw err;
    process.stderr.write(`[webgauge test] ${err.message}\n`);
    process.exitCode = 1;
  }
}
