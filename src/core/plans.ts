/**
 * Plans and their limits, in one place (spec part 8 where it gives numbers; our own choices where it is silent,
 * documented in the README).
 */
export type PlanName = 'basic' | 'pro';
export type Role = 'owner' | 'viewer';

export interface Plan {
  name: PlanName;
  /** Credits refill daily back up to this allowance, never above it. */
  dailyCredits: number;
  /** Credits given to a new account. */
  initialCredits: number;
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
}

export const PLANS: Record<PlanName, Plan> = {
  basic: {
    name: 'basic',
    dailyCredits: 5,
    initialCredits: 5,
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
  },
  pro: {
    name: 'pro',
    dailyCredits: 100,
    initialCredits: 100,
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
  },
};

export function isPlanName(value: string): value is PlanName {
  return value === 'basic' || value === 'pro';
}
