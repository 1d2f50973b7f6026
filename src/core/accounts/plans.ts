/**
 * Plans and their limits, in one place (spec part 8 where it gives numbers; our own choices where it is silent,
 * documented in docs/operations.md "Plans and limits"). The built-in `basic` and `pro` plans, plus the operator's plans file
 * (WEBGAUGE_PLANS_FILE), make one PlanRegistry built at start; everything asks it for an account's plan.
 */
export type PlanName = string;
export type Role = 'owner' | 'viewer';

export interface Plan {
  name: PlanName;
  /** Credits refill daily back up to this allowance, never above it. */
  dailyCredits: number;
  /** Credits given to a new account. */
  initialCredits: number;
  /** Never charged: tests, PDFs and monitoring are neither refused for credits nor debited. */
  unlimitedCredits: boolean;
  /** Queued + started tests allowed at once (429 E42900 beyond). */
  concurrentTests: number;
  /** Requests per rate-limit window (429 E42901 beyond). */
  rateLimit: number;
  rateWindowSeconds: number;
  /** dns, simulate_device, user_agent, browser_width/height/dppx/rotate. */
  proAnalysisOptions: boolean;
  proLocations: boolean;
  pdf: boolean;
  fullPdf: boolean;
  whitelabelPdf: boolean;
  /** Parallel PDF generations per account (429 E42903 beyond). */
  parallelPdfs: number;
  /** Tags an account may hold (spec 4.4; the spec gives no number): creating one more is 403 E40303. */
  maxTags: number;
  /** Pages monitored at once (spec 3; no number given): enabling one more is 403 E40303. */
  monitoringSlots: number;
  /** Whether `hourly` monitoring is offered ("hourly may be unavailable on the plan"); else 403 E40303. */
  hourlyMonitoring: boolean;
  /** Runs per test (not used yet: kept so operators can set it now). */
  maxRuns: number;
  /** Pages one site scan may test (its `max_pages` at most; docs/scans.md). */
  maxScanPages: number;
}

export type BuiltInPlanName = 'basic' | 'pro';

export const PLANS: Readonly<Record<BuiltInPlanName, Plan>> = {
  basic: {
    name: 'basic',
    dailyCredits: 5,
    initialCredits: 5,
    unlimitedCredits: false,
    concurrentTests: 2,
    rateLimit: 240,
    rateWindowSeconds: 60,
    proAnalysisOptions: false,
    proLocations: false,
    pdf: true,
    fullPdf: false,
    whitelabelPdf: false,
    parallelPdfs: 1,
    // One daily-monitored lighthouse page costs 1 credit a day of the 5: room left for own tests.
    maxTags: 10,
    monitoringSlots: 1,
    hourlyMonitoring: false,
    maxRuns: 3,
    maxScanPages: 100,
  },
  pro: {
    name: 'pro',
    dailyCredits: 100,
    initialCredits: 100,
    unlimitedCredits: false,
    concurrentTests: 8,
    rateLimit: 960,
    rateWindowSeconds: 60,
    proAnalysisOptions: true,
    proLocations: true,
    pdf: true,
    fullPdf: true,
    whitelabelPdf: true,
    parallelPdfs: 2,
    // Hourly monitoring costs 24 credits a day per page; the 100 slots are bounded by credits in practice.
    maxTags: 500,
    monitoringSlots: 100,
    hourlyMonitoring: true,
    maxRuns: 9,
    maxScanPages: 1000,
  },
};

const isBuiltIn = (name: string): name is BuiltInPlanName => name === 'basic' || name === 'pro';

type Kind = 'credits' | 'count' | 'positive' | 'flag';
/** The plans file's fields (snake_case), what each must be, and the Plan property it sets. */
const FIELDS: Record<string, { key: Exclude<keyof Plan, 'name'>; kind: Kind }> = {
  daily_credits: { key: 'dailyCredits', kind: 'credits' },
  initial_credits: { key: 'initialCredits', kind: 'credits' },
  unlimited_credits: { key: 'unlimitedCredits', kind: 'flag' },
  concurrent_tests: { key: 'concurrentTests', kind: 'count' },
  rate_limit: { key: 'rateLimit', kind: 'positive' },
  rate_window_seconds: { key: 'rateWindowSeconds', kind: 'positive' },
  pro_analysis_options: { key: 'proAnalysisOptions', kind: 'flag' },
  pro_locations: { key: 'proLocations', kind: 'flag' },
  pdf: { key: 'pdf', kind: 'flag' },
  full_pdf: { key: 'fullPdf', kind: 'flag' },
  whitelabel_pdf: { key: 'whitelabelPdf', kind: 'flag' },
  parallel_pdfs: { key: 'parallelPdfs', kind: 'count' },
  max_tags: { key: 'maxTags', kind: 'count' },
  monitoring_slots: { key: 'monitoringSlots', kind: 'count' },
  hourly_monitoring: { key: 'hourlyMonitoring', kind: 'flag' },
  max_runs: { key: 'maxRuns', kind: 'positive' },
  max_scan_pages: { key: 'maxScanPages', kind: 'positive' },
};

const MAX_LIMIT = 1_000_000_000;

const KIND_TEXT: Record<Kind, string> = {
  credits: `a number ≥ 0 (at most ${MAX_LIMIT}) with at most one decimal`,
  count: `an integer ≥ 0 (at most ${MAX_LIMIT})`,
  positive: `an integer ≥ 1 (at most ${MAX_LIMIT})`,
  flag: 'true or false',
};
const PLAN_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;

/** A plans file that cannot be used; the message names the plan and the field. */
export class PlanFileError extends Error {}

function fieldValue(plan: string, field: string, kind: Kind, value: unknown): number | boolean {
  const bad = () => new PlanFileError(`plan "${plan}": "${field}" must be ${KIND_TEXT[kind]}, got ${JSON.stringify(value)}`);
  if (kind === 'flag') {
    if (typeof value !== 'boolean') throw bad();
    return value;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value < (kind === 'positive' ? 1 : 0) || value > MAX_LIMIT) throw bad();
  if (kind === 'credits' ? Math.abs(value * 10 - Math.round(value * 10)) > 1e-9 : !Number.isInteger(value)) throw bad();
  return value;
}

/**
 * The plans of a parsed plans file, resolved: each plan is what it `extends` (a built-in or another plan of the
 * file; by default the built-in plan of the same name, else `basic`) with its own fields on top.
 */
export function parsePlansFile(doc: unknown): Record<string, Plan> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new PlanFileError('the file must hold a JSON object whose keys are plan names, e.g. {"team":{"extends":"pro","rate_limit":5000}}');
  }
  const raw = doc as Record<string, unknown>;
  const own = new Map<string, { extends?: string; values: Partial<Plan> }>();
  for (const [name, body] of Object.entries(raw)) {
    if (!PLAN_NAME.test(name)) {
      throw new PlanFileError(`plan "${name}": a plan name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PlanFileError(`plan "${name}": must be an object of limits, e.g. {"extends":"basic","daily_credits":20}`);
    }
    const values: Partial<Plan> = {};
    let base: string | undefined;
    for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
      if (field === 'extends') {
        if (typeof value !== 'string' || value === '') throw new PlanFileError(`plan "${name}": "extends" must be a plan name, got ${JSON.stringify(value)}`);
        base = value;
        continue;
      }
      const spec = FIELDS[field];
      if (!spec) {
        throw new PlanFileError(`plan "${name}": unknown field "${field}"; the fields are extends, ${Object.keys(FIELDS).join(', ')}`);
      }
      (values as Record<string, unknown>)[spec.key] = fieldValue(name, field, spec.kind, value);
    }
    own.set(name, { extends: base, values });
  }

  const resolved = new Map<string, Plan>();
  const resolve = (name: string, chain: string[]): Plan => {
    const done = resolved.get(name);
    if (done) return done;
    const entry = own.get(name)!;
    if (chain.includes(name)) throw new PlanFileError(`plan "${chain[0]}": "extends" goes round in a circle (${[...chain, name].join(' → ')})`);
    let base: Plan;
    if (entry.extends === undefined) {
      base = isBuiltIn(name) ? PLANS[name] : PLANS.basic;
      if (!isBuiltIn(name) && own.has('basic')) base = resolve('basic', [...chain, name]);
    } else if (own.has(entry.extends)) {
      base = resolve(entry.extends, [...chain, name]);
    } else if (isBuiltIn(entry.extends)) {
      base = PLANS[entry.extends];
    } else {
      throw new PlanFileError(`plan "${name}": "extends" names the unknown plan "${entry.extends}"; ` +
        `use basic, pro or a plan of this file (${[...own.keys()].join(', ')})`);
    }
    const plan: Plan = { ...base, ...entry.values, name };
    resolved.set(name, plan);
    return plan;
  };
  for (const name of own.keys()) resolve(name, []);
  return Object.fromEntries(resolved);
}

export interface PlanLog {
  warn(obj: object, msg: string): void;
}

/** The plans this service offers: the built-ins, overridden or added to by the operator's plans file. */
export class PlanRegistry {
  private readonly plans: ReadonlyMap<string, Plan>;
  private readonly warned = new Set<string>();
  private log: PlanLog = { warn: (obj, msg) => process.emitWarning(`${msg} ${JSON.stringify(obj)}`) };

  constructor(filePlans: Record<string, Plan> = {}) {
    this.plans = new Map<string, Plan>([...Object.entries(PLANS), ...Object.entries(filePlans)]);
  }

  /** Where warnings go (the server's logger once there is one). */
  useLog(log: PlanLog): void {
    this.log = log;
  }

  has(name: string): boolean {
    return this.plans.has(name);
  }

  names(): string[] {
    return [...this.plans.keys()];
  }

  /** The plan of this name; an account whose plan is gone (from the plans file) works on `basic`, with a warning. */
  get(name: string): Plan {
    const plan = this.plans.get(name);
    if (plan) return plan;
    if (!this.warned.has(name)) {
      this.warned.add(name);
      this.log.warn({ plan: name, known: this.names() }, `accounts on the plan "${name}", which is not among the known plans, work on basic limits`);
    }
    return this.plans.get('basic')!;
  }
}
