/**
 * The documentation stays true to the code: docs/operations.md's table of environment variables holds exactly the
 * WEBGAUGE_* variables src/ reads (or sets for a process it starts), its table of commands exactly the commands
 * `webgauge --help` lists, and every relative link of README.md and docs/*.md leads to a file of the repository and,
 * with an #anchor into a Markdown file, to one of its headings (GitHub's anchors). Each check is also shown to bite on
 * a small broken input.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const OPERATIONS = 'docs/operations.md';
const VARIABLES_HEADING = 'Environment variables';
const COMMANDS_HEADING = 'Commands';

const read = (path: string): string => readFileSync(join(root, path), 'utf8');

function sourceFiles(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f))
    .sort();
}

/** Block comments and whole-line comments out: a variable named in a comment is not read. */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/**
 * The WEBGAUGE_* variables a source reads (`env.NAME`, `env['NAME']`, a helper given `(env, 'NAME')`) or hands to a
 * process it starts (`{ NAME: ... }`), with the files that do.
 */
function variablesOf(sources: Record<string, string>): Map<string, string[]> {
  const patterns = [
    /\benv\.(WEBGAUGE_[A-Z0-9_]+)/g,
    /\benv\[\s*['"](WEBGAUGE_[A-Z0-9_]+)['"]\s*\]/g,
    /\(\s*env\s*,\s*['"](WEBGAUGE_[A-Z0-9_]+)['"]/g,
    /[{,]\s*(WEBGAUGE_[A-Z0-9_]+)\s*:/g,
  ];
  const found = new Map<string, string[]>();
  for (const [file, text] of Object.entries(sources)) {
    const code = withoutComments(text);
    for (const pattern of patterns) {
      for (const m of code.matchAll(pattern)) {
        const files = found.get(m[1]!) ?? [];
        if (!files.includes(file)) files.push(file);
        found.set(m[1]!, files);
      }
    }
  }
  return found;
}

/** A table's cells, split on the pipes that are not escaped (`owner\|viewer` stays one cell). */
function cellsOf(row: string): string[] {
  return row.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((c) => c.trim());
}

/** The rows (header and separator left out) of the first table under the heading `## title` of a Markdown text. */
function tableUnder(markdown: string, title: string, file: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) throw new Error(`${file} has no heading "## ${title}": add it, with its table`);
  let i = start + 1;
  while (i < lines.length && !lines[i]!.startsWith('|')) {
    if (/^##? /.test(lines[i]!)) throw new Error(`${file}: "## ${title}" has no table before the next heading: add it`);
    i++;
  }
  const rows: string[][] = [];
  for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cellsOf(lines[i]!));
  return rows.slice(2);
}

/** Variables a table names in its first column. */
function tableVariables(rows: string[][]): Set<string> {
  const names = new Set<string>();
  for (const row of rows) for (const m of (row[0] ?? '').matchAll(/`(WEBGAUGE_[A-Z0-9_]+)`/g)) names.add(m[1]!);
  return names;
}

function variableProblems(used: Map<string, string[]>, listed: Set<string>): string[] {
  const problems: string[] = [];
  for (const [name, files] of [...used].sort()) {
    if (!listed.has(name)) {
      problems.push(`${OPERATIONS}, "## ${VARIABLES_HEADING}": add a row for \`${name}\` (its default and meaning; ` +
        `read in ${files.join(', ')}; a variable only the service sets for itself is listed as internal)`);
    }
  }
  for (const name of [...listed].sort()) {
    if (!used.has(name)) {
      problems.push(`${OPERATIONS}, "## ${VARIABLES_HEADING}" lists \`${name}\`, which no file of src/ reads: remove ` +
        'its row, or read it where it belongs');
    }
  }
  return problems;
}

/** The usage text `webgauge --help` prints: the template literal of src/ that starts "Usage:" and lists `webgauge serve`. */
function usageText(sources: Record<string, string>): { file: string; text: string } {
  for (const [file, text] of Object.entries(sources)) {
    for (const m of text.matchAll(/`(Usage:\n[\s\S]*?)`/g)) {
      if (/^\s+webgauge serve\b/m.test(m[1]!)) return { file, text: m[1]! };
    }
  }
  throw new Error('no usage text listing `webgauge serve` in src/: the docs test looks for a template literal starting "Usage:"');
}

/** A command's words: `webgauge agent token list [--location ID]` is `agent token list`. */
function commandWords(invocation: string): string {
  const words: string[] = [];
  for (const token of invocation.trim().split(/\s+/).slice(1)) {
    if (!/^[a-z][a-z-]*$/.test(token)) break;
    words.push(token);
  }
  return words.join(' ');
}

function usageCommands(usage: string): Set<string> {
  return new Set(usage.split('\n').filter((l) => /^\s+webgauge\s/.test(l)).map(commandWords));
}

function tableCommands(rows: string[][]): Set<string> {
  const commands = new Set<string>();
  for (const row of rows) {
    for (const m of (row[0] ?? '').matchAll(/`(webgauge [^`]*)`/g)) commands.add(commandWords(m[1]!.replace(/\\\|/g, '|')));
  }
  return commands;
}

function commandProblems(usage: { file: string; commands: Set<string> }, listed: Set<string>): string[] {
  const problems: string[] = [];
  for (const command of [...usage.commands].sort()) {
    if (!listed.has(command)) {
      problems.push(`${OPERATIONS}, "## ${COMMANDS_HEADING}": add a row for \`webgauge ${command}\` (\`webgauge --help\` ` +
        `lists it: the usage text in ${usage.file})`);
    }
  }
  for (const command of [...listed].sort()) {
    if (!usage.commands.has(command)) {
      problems.push(`${OPERATIONS}, "## ${COMMANDS_HEADING}" lists \`webgauge ${command}\`, which \`webgauge --help\` ` +
        `(${usage.file}) does not: add it to the usage text, or remove the row`);
    }
  }
  return problems;
}

/** GitHub's anchor of a heading: its text lowercased, punctuation but - and _ dropped, spaces to -. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Fenced code blocks blanked out (line numbers kept). */
function withoutCodeBlocks(markdown: string): string {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  }).join('\n');
}

/** The anchors of a Markdown text: its headings' slugs (a repeated one gets -1, -2, ...) and explicit `<a id|name>`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = withoutCodeBlocks(markdown);
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

interface Link { line: number; target: string }

/** Inline links and images, and reference definitions, outside code blocks and code spans. */
function linksOf(markdown: string): Link[] {
  const text = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const links: Link[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: lineAt(m.index!), target: m[1]! });
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) links.push({ line: lineAt(m.index!), target: m[1]! });
  return links;
}

/** Dead relative links, links out of the repository and anchors no heading has, in the given files under `base`. */
function linkProblems(base: string, files: string[]): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
    return anchorCache.get(path)!;
  };
  for (const file of files) {
    const absolute = join(base, file);
    for (const { line, target } of linksOf(readFileSync(absolute, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const where = `${file}:${line}: (${target})`;
      const resolved = path === '' ? absolute : resolve(dirname(absolute), path);
      const inRepo = relative(base, resolved);
      if (inRepo.startsWith('..') || isAbsolute(inRepo)) {
        problems.push(`${where} leads out of the repository: link a page of the repository instead (docs/architecture.md for the design)`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${where} leads to ${inRepo}, which does not exist: fix the path, or add the file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (extname(resolved) !== '.md') {
        if (!/^L\d+(-L\d+)?$/.test(anchor)) problems.push(`${where}: #${anchor} points into ${inRepo}, which has no headings: drop the anchor`);
        continue;
      }
      const anchors = anchorsIn(resolved);
      if (!anchors.has(anchor)) {
        const near = [...anchors].filter((a) => a.includes(anchor.split('-')[0]!)).slice(0, 5);
        problems.push(`${where}: ${inRepo} has no heading whose anchor is #${anchor}: fix the anchor` +
          (near.length ? ` (it has ${near.map((a) => `#${a}`).join(', ')})` : '') + ', or add the heading');
      }
    }
  }
  return problems;
}

function documentationFiles(): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

function srcSources(): Record<string, string> {
  return Object.fromEntries(sourceFiles('src').map((f) => [f, read(f)]));
}

describe('docs/operations.md holds every variable and command', () => {
  const sources = srcSources();
  const operations = read(OPERATIONS);

  test('its variables table lists exactly the WEBGAUGE_* variables src/ reads or sets', () => {
    const used = variablesOf(sources);
    // The reader of this check must see the configuration's and the gate's variables, or it sees nothing.
    for (const name of ['WEBGAUGE_PORT', 'WEBGAUGE_SCAN_DISCOVERY_MS', 'WEBGAUGE_SERVER', 'WEBGAUGE_POLL_MS']) {
      assert.ok(used.has(name), `the docs test no longer finds ${name} in src/: its patterns need mending`);
    }
    const problems = variableProblems(used, tableVariables(tableUnder(operations, VARIABLES_HEADING, OPERATIONS)));
    assert.equal(problems.length, 0, problems.join('\n'));
  });

  test('its commands table lists exactly the commands `webgauge --help` lists', () => {
    const usage = usageText(sources);
    const commands = usageCommands(usage.text);
    assert.ok(commands.has('serve') && commands.has('scan'), `the usage text in ${usage.file} no longer reads as expected`);
    const problems = commandProblems({ file: usage.file, commands }, tableCommands(tableUnder(operations, COMMANDS_HEADING, OPERATIONS)));
    assert.equal(problems.length, 0, problems.join('\n'));
  });

  test('`webgauge --help` sends the reader to docs/operations.md', () => {
    const usage = usageText(sources);
    assert.match(usage.text, /\(see docs\/operations\.md\)/, `the usage text in ${usage.file} should end "(see docs/operations.md)"`);
  });
});

describe('links between the pages', () => {
  test('no relative link of README.md or docs/*.md is dead, leaves the repository or names a missing anchor', () => {
    const problems = linkProblems(root, documentationFiles());
    assert.equal(problems.length, 0, problems.join('\n'));
  });
});

describe('the checks bite', () => {
  const tree = mkdtempSync(join(tmpdir(), 'webgauge-docs-'));
  after(() => rmSync(tree, { recursive: true, force: true }));

  test('a variable read but not listed, and one listed but not read, are both named', () => {
    const used = variablesOf({
      'src/config.ts': "const a = intVar(env, 'WEBGAUGE_PORT', 8080);\nconst b = env.WEBGAUGE_NEW_ONE;\n// env.WEBGAUGE_IN_A_COMMENT\n",
      'src/runner/browser.ts': 'spawn(cmd, { env: { WEBGAUGE_CHILD: uid } });\n',
    });
    assert.deepEqual([...used.keys()].sort(), ['WEBGAUGE_CHILD', 'WEBGAUGE_NEW_ONE', 'WEBGAUGE_PORT']);
    const rows = tableUnder('## Environment variables\n\n| Variable | Default | Meaning |\n|---|---|---|\n| `WEBGAUGE_PORT` | `8080` | port |\n' +
      '| `WEBGAUGE_CHILD`, `WEBGAUGE_GONE` | | internal |\n', VARIABLES_HEADING, OPERATIONS);
    const problems = variableProblems(used, tableVariables(rows));
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0]!, /add a row for `WEBGAUGE_NEW_ONE` .*read in src\/config\.ts/);
    assert.match(problems[1]!, /lists `WEBGAUGE_GONE`, which no file of src\/ reads/);
  });

  test('a command of the usage without a row, and a row without a command, are both named', () => {
    const usage = usageText({ 'src/admin.ts': 'const USAGE = `Usage:\n  webgauge serve [--port P]\n  webgauge agent token list [--location ID]\n  webgauge frobnicate --all\nConfiguration: (see docs/operations.md).`;' });
    const rows = tableUnder('## Commands\n\n| Command | What it does |\n|---|---|\n| `webgauge serve` (`bin/webgauge serve`) | serves |\n' +
      '| `webgauge agent token list [--location ID]`, `webgauge agent token revoke TOKEN_ID` | tokens |\n', COMMANDS_HEADING, OPERATIONS);
    const problems = commandProblems({ file: usage.file, commands: usageCommands(usage.text) }, tableCommands(rows));
    assert.deepEqual(problems.map((p) => p.match(/`webgauge ([a-z -]+)`/)![1]), ['frobnicate', 'agent token revoke']);
    assert.match(problems[0]!, /add a row for `webgauge frobnicate`/);
  });

  test('anchors follow GitHub: punctuation dropped, spaces to -, a repeated heading numbered', () => {
    assert.equal(slug('`webgauge test`: a performance gate for CI'), 'webgauge-test-a-performance-gate-for-ci');
    assert.equal(slug('Scheduled scans: `POST /scan_schedules`'), 'scheduled-scans-post-scan_schedules');
    assert.equal(slug("Lighthouse's figures against a bare Lighthouse: parity"), 'lighthouses-figures-against-a-bare-lighthouse-parity');
    assert.equal(slug('Runtime: Node.js 24'), 'runtime-nodejs-24');
    assert.deepEqual([...anchorsOf('# A\n## Notes\n```\n## Not a heading\n```\n### Notes\n## Notes\n')], ['a', 'notes', 'notes-1', 'notes-2']);
  });

  test('a dead link, an unknown anchor and a link out of the repository are each named with file and line', () => {
    mkdirSync(join(tree, 'docs'), { recursive: true });
    writeFileSync(join(tree, 'README.md'), '# Here\n\n[ok](docs/a.md#the-part) [gone](docs/b.md)\n\n`[not a link](nowhere.md)`\n');
    writeFileSync(join(tree, 'docs/a.md'), '# A\n\n## The part\n\nSee [the top](#a), [a typo](#the-prat) and [the design](../../shared/DESIGN.md).\n');
    const problems = linkProblems(tree, ['README.md', 'docs/a.md']);
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems[0]!, /^README\.md:3: \(docs\/b\.md\) leads to docs\/b\.md, which does not exist/);
    assert.match(problems[1]!, /^docs\/a\.md:5: \(#the-prat\): docs\/a\.md has no heading whose anchor is #the-prat.*#the-part/);
    assert.match(problems[2]!, /^docs\/a\.md:5: \(\.\.\/\.\.\/shared\/DESIGN\.md\) leads out of the repository/);
  });
});
