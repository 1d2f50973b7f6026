/** RunSpecs for tests and benchmarks that drive the runner directly (no agent): conditions parsed by core. */
import { loadConditions } from '../../src/core/options/conditions.js';
import type { AnalysisOptions } from '../../src/core/options/analysis-options.js';
import { TargetPolicy } from '../../src/net/policy.js';
import type { RunSpec } from '../../src/runner/types.js';

export const CHROME = process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium';

/** The fixture site lives on loopback: runner tests allow everything unless they test the policy. */
export const ALLOW_ALL = new TargetPolicy({ allowAll: true, allowTargets: '' });
export const PUBLIC_ONLY = new TargetPolicy({ allowAll: false, allowTargets: '' });

export function analysisOptions(url: string, extra: Partial<AnalysisOptions> = {}): AnalysisOptions {
  return {
    url, location: '1', browser: '3', report: 'lighthouse', retention: 1, adblock: 0, cookies: [], video: 0,
    stop_onload: 0, allow_url: [], block_url: [], dns: [], browser_rotate: 0, ...extra,
  };
}

export function runSpec(options: AnalysisOptions, rest: Omit<RunSpec, 'options' | 'conditions' | 'policy' | 'chromePath'> &
  Partial<Pick<RunSpec, 'policy' | 'chromePath'>>): RunSpec {
  return { options, conditions: loadConditions(options), policy: ALLOW_ALL, chromePath: CHROME, ...rest };
}
