/**
 * `webgauge` commands that run the service or administer its store (everything but `test`, the CI gate: main.ts).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { AccountInputError, countAccounts, createAccount, listAccounts, regenerateKey, setPassword, updateAccount } from './core/accounts/accounts.js';
import { passwordProblem } from './core/accounts/passwords.js';
import type { PlanRegistry, Role } from './core/accounts/plans.js';
import { openStore, type Store } from './store/db.js';
import { backUp, describeBackup } from './store/backup.js';
import { BackupError } from './store/backup-format.js';
import { describeRestore, restoreBackup } from './store/restore.js';
import {
  addLocation, createAgentToken, listAgentTokens, listLocations, LocationInputError, removeLocation, revokeToken,
} from './core/catalog/locations.js';
import { TrustStoreError } from './runner/trust-store.js';

const USAGE = `Usage:
  webgauge serve [--host H] [--port P] [--no-agent]
  webgauge test URL [--server URL] [--key KEY] [--budget FILE] [--compare-history] ... (webgauge test --help)
  webgauge scan URL [--sitemap|--crawl|--urls FILE] [--max-pages N] [--budget NAME=VALUE]... (webgauge scan --help)
  webgauge account create --email E --plan PLAN [--credits N] [--role owner|viewer --team-of EMAIL] [--password-stdin]
  webgauge account list
  webgauge account update --email E [--plan PLAN] [--credits N]
  webgauge account password --email E --password-stdin
  webgauge key regenerate --email E
  webgauge location add --name NAME --region REGION [--default]
  webgauge location list
  webgauge location remove ID
  webgauge agent token create --location ID
  webgauge agent token list [--location ID]
  webgauge agent token revoke TOKEN_ID
  webgauge agent --server URL --token TOKEN [--slots N] [--health-port P]
  webgauge migrate
  webgauge backup --to DIR
  webgauge restore --from DIR
Configuration: WEBGAUGE_HOST, WEBGAUGE_PORT, WEBGAUGE_DATA_DIR, WEBGAUGE_DATABASE_URL, WEBGAUGE_CHROME_PATH, WEBGAUGE_FIREFOX_PATH,
WEBGAUGE_ALLOW_PRIVATE_TARGETS, WEBGAUGE_AGENT_SLOTS, WEBGAUGE_PLANS_FILE (see docs/operations.md).`;

/** Errors of the operator's making: the command stops with exit 2 and the message alone. */
const operatorErrors: (new (...args: never[]) => Error)[] = [ConfigError, AccountInputError, LocationInputError, TrustStoreError, BackupError];

/**
 * The service and the remote agent, with the browser runner and Lighthouse under them, are most of a start: only
 * `serve` and `agent` load them (and then know their errors), so the store's commands start without.
 */
async function loadRuntime<T>(load: () => Promise<T>): Promise<T> {
  const [loaded, { BrowserSetupError }] = await Promise.all([load(), import('./runner/browser.js')]);
  operatorErrors.push(BrowserSetupError);
  return loaded;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { host: { type: 'string' }, port: { type: 'string' }, 'no-agent': { type: 'boolean' } } });
  const env = { ...process.env };
  if (values.host) env.WEBGAUGE_HOST = values.host;
  if (values.port) env.WEBGAUGE_PORT = values.port;
  if (values['no-agent']) env.WEBGAUGE_AGENT = '0';
  const config = loadConfig(env);
  const { createApp } = await loadRuntime(() => import('./app.js'));
  const app = await createApp(config);
  if ((await countAccounts(app.store.db)) === 0) {
    const email = process.env.WEBGAUGE_OWNER_EMAIL || 'owner@localhost';
    const { apiKey } = await createAccount(app.store.db, config.plans, { email, plan: 'pro' });
    process.stdout.write(
      `\nFirst start: created the owner account ${email} on the pro plan.\nAPI key (shown once, keep it): ${apiKey}\n` +
        'Sign in to the web app with this key (or set a password: webgauge account password --email ' + email + ' --password-stdin).\n\n',
    );
  }
  const address = await app.server.listen({ host: config.host, port: config.port });
  process.stdout.write(`Webgauge listening on ${address}/api/2.0 (${app.store.engine}, data in ${config.dataDir})\n` +
    `Web app: open ${address}/ in a browser\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.server.log.info({ signal }, 'stopping: running tests go back to the queue');
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function withStore<T>(fn: (db: Store['db'], plans: PlanRegistry, store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, secretKey: config.secretKey });
  try {
    return await fn(store.db, config.plans, store);
  } finally {
    await store.close();
  }
}

/** The password from standard input: everything up to the first line break (what `echo` or a pipe gives). */
async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  const problem = passwordProblem(password);
  if (problem) throw new AccountInputError(`${problem} (read from standard input)`);
  return password;
}

function creditsFlag(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const credits = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(credits)) throw new AccountInputError(`--credits must be a number, got "${raw}"`);
  return credits;
}

/** One account as `account list` prints it: e-mail, plan, credits, role (and team owner); never a key. */
function accountLine(a: Awaited<ReturnType<typeof listAccounts>>[number]): string {
  return `${a.email}\tplan=${a.plan}\tcredits=${a.credits}\trole=${a.role}${a.teamOf ? `\tteam_of=${a.teamOf}` : ''}`;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === 'serve') {
    await serve([sub, ...rest].filter((a): a is string => a !== undefined));
    return -1; // keep running
  }
  if (cmd === 'migrate') {
    await withStore(async () => undefined);
    process.stdout.write('migrations applied\n');
    return 0;
  }
  if (cmd === 'backup') {
    const { values } = parseArgs({ args: [sub, ...rest].filter((a): a is string => a !== undefined), options: { to: { type: 'string' } } });
    if (!values.to) throw new BackupError('--to DIR is required: a new or empty folder for the backup');
    const config = loadConfig();
    const outcome = await backUp({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey }, values.to);
    process.stdout.write(describeBackup(outcome));
    return 0;
  }
  if (cmd === 'restore') {
    const { values } = parseArgs({ args: [sub, ...rest].filter((a): a is string => a !== undefined), options: { from: { type: 'string' } } });
    if (!values.from) throw new BackupError('--from DIR is required: the folder of a backup (webgauge backup --to DIR)');
    const config = loadConfig();
    const outcome = await restoreBackup({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey }, values.from);
    process.stdout.write(describeRestore(outcome));
    return 0;
  }
  if (cmd === 'account' && sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' }, plan: { type: 'string' }, credits: { type: 'string' }, role: { type: 'string' }, 'team-of': { type: 'string' },
        'password-stdin': { type: 'boolean' },
      },
    });
    if (!values.email || !values.plan) throw new AccountInputError('--email and --plan are required');
    const credits = creditsFlag(values.credits);
    // Read (and checked) before the account exists: a bad password creates nothing.
    const password = values['password-stdin'] ? await passwordFromStdin() : undefined;
    const { apiKey } = await withStore(async (db, plans) => {
      const made = await createAccount(db, plans, { email: values.email!, plan: values.plan!, credits, role: values.role as Role | undefined, teamOf: values['team-of'] });
      if (password !== undefined) await setPassword(db, values.email!, password);
      return made;
    });
    process.stdout.write(`created account ${values.email}\n${apiKey}\n`);
    return 0;
  }
  if (cmd === 'account' && sub === 'list') {
    parseArgs({ args: rest, options: {} });
    const accounts = await withStore((db) => listAccounts(db));
    for (const a of accounts) process.stdout.write(`${accountLine(a)}\n`);
    return 0;
  }
  if (cmd === 'account' && sub === 'update') {
    const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, plan: { type: 'string' }, credits: { type: 'string' } } });
    if (!values.email) throw new AccountInputError('--email is required');
    const updated = await withStore((db, plans) => updateAccount(db, plans, values.email!, { plan: values.plan, credits: creditsFlag(values.credits) }));
    process.stdout.write(`updated ${accountLine(updated)}\n`);
    return 0;
  }
  if (cmd === 'account' && sub === 'password') {
    const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } } });
    if (!values.email) throw new AccountInputError('--email is required');
    if (!values['password-stdin']) throw new AccountInputError('give the password on standard input with --password-stdin (never on the command line)');
    const password = await passwordFromStdin();
    await withStore((db) => setPassword(db, values.email!, password));
    process.stdout.write(`password set for ${values.email}\n`);
    return 0;
  }
  if (cmd === 'key' && sub === 'regenerate') {
    const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
    if (!values.email) throw new AccountInputError('--email is required');
    const apiKey = await withStore((db) => regenerateKey(db, values.email!));
    process.stdout.write(`new API key for ${values.email}\n${apiKey}\n`);
    return 0;
  }
  if (cmd === 'location' && sub === 'add') {
    const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, region: { type: 'string' }, default: { type: 'boolean' } } });
    const row = await withStore((_db, _plans, store) => addLocation(store, { name: values.name, region: values.region, makeDefault: values.default }));
    process.stdout.write(`added location ${row.name} (${row.region})${row.is_default ? ', the default' : ''}\n${row.id}\n`);
    return 0;
  }
  if (cmd === 'location' && sub === 'list') {
    parseArgs({ args: rest, options: {} });
    const rows = await withStore((db) => listLocations(db, loadConfig().agentHeartbeatMs));
    for (const l of rows) {
      const agents = l.agents.map((a) => `${a.hostname}(${a.online ? 'online' : 'offline'},slots=${a.slots},v${a.version})`).join(' ');
      process.stdout.write(`${l.id}\tname=${l.name}\tregion=${l.region}${l.is_default ? '\tdefault' : ''}\tagents_online=${l.agents.filter((a) => a.online).length}${agents ? `\t${agents}` : ''}\n`);
    }
    return 0;
  }
  if (cmd === 'location' && sub === 'remove') {
    const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true });
    if (positionals.length !== 1) throw new LocationInputError('give the ID of the location to remove (webgauge location list)');
    await withStore((_db, _plans, store) => removeLocation(store, positionals[0]!));
    process.stdout.write(`removed location ${positionals[0]}\n`);
    return 0;
  }
  if (cmd === 'agent' && sub === 'token') {
    const [action, ...args] = rest;
    if (action === 'create') {
      const { values } = parseArgs({ args, options: { location: { type: 'string' } } });
      if (!values.location) throw new LocationInputError('--location is required (webgauge location list)');
      const { id, token } = await withStore((_db, _plans, store) => createAgentToken(store, values.location!));
      process.stdout.write(`agent token ${id} for location ${values.location} (shown once, keep it)\n${token}\n`);
      return 0;
    }
    if (action === 'list') {
      const { values } = parseArgs({ args, options: { location: { type: 'string' } } });
      const rows = await withStore((db) => listAgentTokens(db, values.location));
      for (const t of rows) {
        process.stdout.write(`${t.id}\tlocation=${t.location}\tcreated=${new Date(t.created).toISOString()}${t.revoked ? `\trevoked=${new Date(t.revoked).toISOString()}` : ''}\n`);
      }
      return 0;
    }
    if (action === 'revoke') {
      const { positionals } = parseArgs({ args, options: {}, allowPositionals: true });
      if (positionals.length !== 1) throw new LocationInputError('give the ID of the token to revoke (webgauge agent token list)');
      await withStore((_db, _plans, store) => revokeToken(store, positionals[0]!));
      process.stdout.write(`revoked agent token ${positionals[0]}\n`);
      return 0;
    }
  }
  if (cmd === 'agent' && (sub === undefined || sub.startsWith('--'))) {
    const { values } = parseArgs({
      args: [sub, ...rest].filter((a): a is string => a !== undefined),
      options: { server: { type: 'string' }, token: { type: 'string' }, slots: { type: 'string' }, 'health-port': { type: 'string' } },
    });
    const config = loadConfig();
    const healthPort = values['health-port'] === undefined ? undefined : Number(values['health-port']);
    if (healthPort !== undefined && (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535)) {
      throw new ConfigError(`--health-port must be a port number (0 to 65535), got "${values['health-port']}"`);
    }
    const { startRemoteAgent, AgentStartError } = await loadRuntime(() => import('./agent/remote.js'));
    operatorErrors.push(AgentStartError);
    const { stop } = await startRemoteAgent({
      server: values.server ?? '', token: values.token ?? '', slots: Number(values.slots ?? '1'), config, healthPort, healthHost: config.host,
    });
    let stopping = false;
    const onSignal = () => {
      if (stopping) return;
      stopping = true;
      // Running tests go back to the queue; another agent of the location takes them.
      void stop().then(() => process.exit(0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    return -1; // keep running
  }
  process.stderr.write(`${USAGE}\n`);
  return cmd === undefined || cmd === 'help' || cmd === '--help' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (operatorErrors.some((known) => err instanceof known) || ((err as { code?: string }).code ?? '').startsWith('ERR_PARSE_ARGS_')) {
      process.stderr.write(`webgauge: ${(err as Error).message}\n`);
      process.exit(2);
    }
    process.stderr.write(`webgauge: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
