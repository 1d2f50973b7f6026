#!/usr/bin/env node
/**
 * The `webgauge` command. `webgauge test` is the CI gate (gate/): a client of the API that loads nothing of the
 * service, so a pipeline's machine needs neither a database nor a browser. Everything else is admin.ts.
 */
const [command, ...args] = process.argv.slice(2);
if (command === 'test') {
  const { gateMain } = await import('./gate/cli.js');
  process.exitCode = await gateMain(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
} else {
  await import('./admin.js');
}
