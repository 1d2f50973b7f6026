/**
 * The import rules of src/ (.dependency-cruiser.cjs: no circle, type-only imports included; each layer imports only
 * the layers below it; api/ and web/ never each other; the gate a client of the API; discovery a leaf over net/ and
 * lib/), checked over the real tree, and shown to bite on a small tree that breaks each rule.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const depcruise = join(root, 'node_modules/.bin/depcruise');
const config = join(root, '.dependency-cruiser.cjs');

function cruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(depcruise, ['src', '--config', config, '--output-type', 'err'], { cwd, maxBuffer: 1 << 22 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr }));
  });
}

describe('import rules', () => {
  test('src/ has no import circle and no import from a lower layer up', async () => {
    const { code, output } = await cruise(root);
    assert.equal(code, 0, output);
    assert.match(output, /no dependency violations found/);
  });

  const tree = mkdtempSync(join(tmpdir(), 'webgauge-deps-'));
  after(() => rmSync(tree, { recursive: true, force: true }));

  test('a circle, an upward import, two edges importing each other, a gate reaching into the service and discovery importing beside net/ and lib/ all fail the check', async () => {
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
      'package.json': JSON.stringify({ type: 'module' }),
      'src/store/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'src/store/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
      'src/net/policy.ts': "import { route } from '../api/route.js';\nexport const policy = route;\n",
      'src/api/route.ts': "import { screen } from '../web/screen.js';\nexport const route = screen;\n",
      'src/web/screen.ts': 'export const screen = 1;\n',
      'src/gate/cli.ts': "import type { A } from '../store/a.js';\nexport type G = A;\n",
      'src/analysis/grade.ts': 'export const grade = 1;\n',
      'src/discovery/crawl.ts': "import { grade } from '../analysis/grade.js';\nexport const crawl = grade;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), text);
    }
    const { code, output } = await cruise(tree);
    assert.notEqual(code, 0, output);
    assert.match(output, /no-circular: src\/store\/a\.ts/);
    assert.match(output, /layer-net-lib: src\/net\/policy\.ts → src\/api\/route\.ts/);
    assert.match(output, /edges-apart: src\/api\/route\.ts → src\/web\/screen\.ts/);
    assert.match(output, /gate-is-a-client: src\/gate\/cli\.ts → src\/store\/a\.ts/);
    assert.match(output, /discovery-is-a-leaf: src\/discovery\/crawl\.ts → src\/analysis\/grade\.ts/);
  });
});
