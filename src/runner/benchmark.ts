/**
 * Lighthouse's CPU benchmark index (pageFunctions.computeBenchmarkIndex: about 1 s of string building and array
 * copying in the page) in a fresh browser of the agent's kind: the agent's baseline for the run guard.
 */
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';
import { median } from '../analysis/statistics.js';
import { closeBrowser, launchBrowser, type BrowserSandbox } from './browser.js';

/** The browser resolves no host at all: it only ever shows about:blank. */
const NO_NETWORK = ['--host-resolver-rules=MAP * ~NOTFOUND'];

export async function measureBenchmarkIndex(o: { chromePath: string; sandbox: BrowserSandbox; samples: number }): Promise<number> {
  const browser = await launchBrowser({ chromePath: o.chromePath, sandbox: o.sandbox, flags: NO_NETWORK, protocolTimeoutMs: 30_000 });
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    const values: number[] = [];
    for (let i = 0; i < o.samples; i++) values.push(await page.evaluate(pageFunctions.computeBenchmarkIndex));
    return median(values);
  } finally {
    await closeBrowser(browser);
  }
}
