#!/usr/bin/env node
/**
 * The `webgauge` command. `webgauge test` and `webgauge scan` are the CI gate (gate/): a client of the API that loads
 * nothing of the service, so a pipeline's machine needs neither a database nor a browser. Everything else is admin.ts.
 */
// Lighthouse 13 and its puppeteer-core need Node.js 22.19 or newer: say so before anything of theirs is loaded.
const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split('.').map(Number);
if (nodeMajor < 22 || (nodeMajor === 22 && nodeMinor < 19)) {
  process.stderr.write(`webgauge needs Node.js 22.19 or newer; this is ${process.version}. Run it as bin/webgauge, which ` +
    'uses the Node.js that scripts/install.sh chose or brought into .runtime/.\n');
  process.exit(2);
}
const [command, ...args] = process.argv.slice(2);
if (command === 'test') {
  const { gateMain } = await import('./gate/cli.js');
  process.exitCode = await gateMain(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
} else if (command === 'scan') {
  const { runScanGate } = await import('./gate/scan.js');
  process.exitCode = await runScanGate(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
} else {
  await import('./admin.js');
}
