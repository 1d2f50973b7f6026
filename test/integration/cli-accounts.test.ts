// lane: pairs 90
/**
 * The operator's account commands as they are run: `webgauge account create|list|update` in a child process,
 * on a temporary data folder (SQLite) with a plans file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { accountByPassword } from '../../src/core/accounts/accounts.js';
import { openStore } from '../../src/store/db.js';
import { webgaugeArgs } from '../helpers/webgauge-command.js';

describe('webgauge account create, list, update', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webgauge-cli-'));
    const plansFile = join(dir, 'plans.json');
    await writeFile(plansFile, JSON.stringify({ team: { extends: 'pro', unlimited_credits: true, initial_credits: 0 } }));
    env = { ...process.env, WEBGAUGE_DATA_DIR: join(dir, 'data'), WEBGAUGE_PLANS_FILE: plansFile, WEBGAUGE_DATABASE_URL: '' };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const webgauge = (...args: string[]) => typed(undefined, ...args);
  /** With `input` on standard input, as `echo PASSWORD | webgauge …`. */
  const typed = (input: string | undefined, ...args: string[]) => {
    const r = spawnSync(process.execPath, webgaugeArgs(args), { env, encoding: 'utf8', timeout: 60_000, input });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  test('create accepts a plan of the file and refuses an unknown one with the known names (exit 2)', () => {
    const made = webgauge('account', 'create', '--email', 'Ops@Example.test', '--plan', 'team');
    assert.equal(made.code, 0, made.err);
    assert.match(made.out.trim().split('\n').at(-1)!, /^\S{20,}$/, 'the key is the last line');
    assert.equal(webgauge('account', 'create', '--email', 'b@example.test', '--plan', 'basic').code, 0);
    const bad = webgauge('account', 'create', '--email', 'c@example.test', '--plan', 'gold');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown plan "gold"; the plans are basic, pro, team/);
  });

  test('list prints one line per account: e-mail, plan, credits, role, and no key', () => {
    const listed = webgauge('account', 'list');
    assert.equal(listed.code, 0, listed.err);
    assert.deepEqual(listed.out.trim().split('\n'), [
      'ops@example.test\tplan=team\tcredits=0\trole=owner',
      'b@example.test\tplan=basic\tcredits=5\trole=owner',
    ]);
  });

  test('update changes plan and credits; unknown e-mail, unknown plan or bad credits exit 2 and change nothing', () => {
    const up = webgauge('account', 'update', '--email', 'b@example.test', '--plan', 'team', '--credits', '12.5');
    assert.equal(up.code, 0, up.err);
    assert.match(up.out, /b@example\.test\tplan=team\tcredits=12\.5/);
    for (const [args, message] of [
      [['--email', 'nobody@example.test', '--plan', 'pro'], /no account with e-mail nobody@example\.test/],
      [['--email', 'b@example.test', '--plan', 'gold'], /unknown plan "gold"/],
      [['--email', 'b@example.test', '--credits=-1'], /credits must be a number ≥ 0/],
      [['--email', 'b@example.test', '--credits', '-1'], /--credits/],
      [['--email', 'b@example.test', '--credits', 'many'], /--credits must be a number/],
      [['--email', 'b@example.test'], /nothing to change/],
    ] as const) {
      const r = webgauge('account', 'update', ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
    }
    assert.match(webgauge('account', 'list').out, /b@example\.test\tplan=team\tcredits=12\.5\trole=owner/);
  });

  test('a bad plans file stops the command with a message naming file, plan and field (exit 2)', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify({ team: { extends: 'pro', concurrent_tests: -4 } }));
    const saved = env.WEBGAUGE_PLANS_FILE;
    env.WEBGAUGE_PLANS_FILE = broken;
    try {
      const r = webgauge('account', 'list');
      assert.equal(r.code, 2);
      assert.match(r.err, /WEBGAUGE_PLANS_FILE .*broken\.json: plan "team": "concurrent_tests" must be an integer ≥ 0 \(at most 1000000000\), got -4/);
    } finally {
      env.WEBGAUGE_PLANS_FILE = saved;
    }
  });
  test('passwords come on standard input only, are checked, and are stored as scrypt (the web app signs in with them)', async () => {
    const short = typed('seven77\n', 'account', 'create', '--email', 'short@example.test', '--plan', 'basic', '--password-stdin');
    assert.equal(short.code, 2);
    assert.match(short.err, /at least 8 characters \(read from standard input\)/);
    assert.doesNotMatch(webgauge('account', 'list').out, /short@example\.test/, 'a refused password creates no account');
    const made = typed('correct horse battery\n', 'account', 'create', '--email', 'pw@example.test', '--plan', 'basic', '--password-stdin');
    assert.equal(made.code, 0, made.err);
    const noStdin = webgauge('account', 'password', '--email', 'pw@example.test');
    assert.equal(noStdin.code, 2);
    assert.match(noStdin.err, /--password-stdin/);
    assert.equal(typed('another passphrase\n', 'account', 'password', '--email', 'nobody@example.test', '--password-stdin').code, 2);

    const store = await openStore({ dataDir: join(dir, 'data') });
    try {
      const row = await store.db.selectFrom('accounts').select('password_hash').where('email', '=', 'pw@example.test').executeTakeFirstOrThrow();
      assert.match(row.password_hash ?? '', /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      assert.ok(await accountByPassword(store.db, 'PW@example.test', 'correct horse battery'));
      assert.equal(await accountByPassword(store.db, 'pw@example.test', 'correct horse batterY'), undefined);
      assert.equal(await accountByPassword(store.db, 'b@example.test', 'correct horse battery'), undefined, 'no password set: nobody signs in with one');
    } finally {
      await store.close();
    }
    const changed = typed('another passphrase\n', 'account', 'password', '--email', 'pw@example.test', '--password-stdin');
    assert.equal(changed.code, 0, changed.err);
    const again = await openStore({ dataDir: join(dir, 'data') });
    try {
      assert.equal(await accountByPassword(again.db, 'pw@example.test', 'correct horse battery'), undefined, 'the old password stops working');
      assert.ok(await accountByPassword(again.db, 'pw@example.test', 'another passphrase'));
    } finally {
      await again.close();
    }
  });
});
