/**
 * A remote agent whose runner returns at once (the queue bench only: it measures the queue and the protocol, not
 * a page load). Everything else is the real agent: HTTP transport, hello, long-poll claims, leases, the upload of
 * a result bundle, completion. Prints `claimed <test id> <epoch ms>` when a test reaches its runner.
 *
 *   node --import tsx bench/lib/stub-agent.ts <server> <token>
 */
import { startRemoteAgent } from '../../src/agent/remote.js';
import { loadConfig } from '../../src/config.js';
import type { RunResult, RunSpec } from '../../src/runner/types.js';
import { stubResult } from '../../test/helpers/stub-result.js';

const [server, token] = process.argv.slice(2);

async function stubRun(spec: RunSpec): Promise<RunResult> {
  process.stdout.write(`claimed ${spec.testId} ${Date.now()}\n`);
  return stubResult(spec.options.url);
}

await startRemoteAgent({ server: server!, token: token!, slots: 1, run: stubRun, config: loadConfig() });
