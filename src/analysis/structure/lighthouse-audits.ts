/**
 * Structure audits taken from Lighthouse's non-metric performance audits: one generic factory that reads
 * `lhr.audits[id]`, and the table of which audits count and with what impact, one table per Lighthouse major version
 * whose audits differ (index.ts picks the table by the version that made the result).
 *
 * Scoring: Lighthouse's own score (0-1), except that a failed "metricSavings" audit (Lighthouse 13's insights among
 * them) scores 0 whatever it estimated it would save. Lighthouse scores such an audit 0 when it estimates a metric
 * saving and 0.5 when that saving rounds to nothing (to 50 ms: 24 ms is 0, 26 ms is 50), and the estimate comes from
 * this load's timings (the simulator's graph of the load): on an unchanged page "Improve image delivery" failed with
 * the same 57 KiB to save and scored 0 or 0.5 from one load to the next (bench/stability.bench.ts). Whether it failed
 * is what the page is built of (the bytes, headers, markup it found); how much time that costs is the performance
 * score's to say. `notApplicable`, `error` and `manual`
 * results are left out. `informative` results are left out too, except where a table says how to read them:
 * - `informative-means-pass`: audits that turn informative when they pass (Lighthouse 12's third-party-summary and
 *   layout-shifts; 13's cls-culprits-insight, informative when the page's layout shifts are within "good"): 1;
 * - `count-items`: long-tasks, always informative: max(0, 1 − n / 10) for its n listed long tasks;
 * - `dom-elements`: Lighthouse 13's dom-size-insight never fails (informative when large style or layout updates were
 *   seen): read as Lighthouse 12's dom-size was, 1 up to DOM_ELEMENTS_PASS elements, else 0 when the insight saw the
 *   size cost the page large updates (informative) and 0.5 when not;
 * - `third-party-time`: Lighthouse 13's third-parties-insight never fails (informative whenever a third party loads):
 *   read as Lighthouse 12's third-party-summary was, 1 while the third parties' main-thread time is at most
 *   THIRD_PARTY_PASS_MS, else 0.
 */
import { clamp01, NOT_APPLICABLE, type AuditOutcome, type Impact, type LhAudit, type StructureAudit } from './audit.js';
import { lighthouseItems, lighthouseSavings } from './lighthouse-details.js';

type Scoring = 'lighthouse' | 'informative-means-pass' | 'count-items' | 'dom-elements' | 'third-party-time';

export interface LighthouseAuditSpec {
  id: string;
  /** Lighthouse's title (the result's own title is shown when there is one). */
  title: string;
  impact: Impact;
  scoring?: Scoring;
  /** Lighthouse 12 audits this one replaces in the structure score (Lighthouse's `replacesAudits`, or its blog). */
  replaces?: readonly string[];
}

/** Lighthouse 12.8 audit id → impact (high 3, medium 2, low 1): how reports made by Lighthouse 12 were scored. */
export const LIGHTHOUSE_12_AUDITS: readonly LighthouseAuditSpec[] = [
  { id: 'render-blocking-resources', title: 'Eliminate render-blocking resources', impact: 'high' },
  { id: 'uses-text-compression', title: 'Enable text compression', impact: 'high' },
  { id: 'uses-optimized-images', title: 'Efficiently encode images', impact: 'high' },
  { id: 'redirects', title: 'Avoid multiple page redirects', impact: 'high' },
  { id: 'server-response-time', title: 'Reduce initial server response time', impact: 'high' },
  { id: 'uses-responsive-images', title: 'Properly size images', impact: 'medium' },
  { id: 'offscreen-images', title: 'Defer offscreen images', impact: 'medium' },
  { id: 'modern-image-formats', title: 'Serve images in next-gen formats', impact: 'medium' },
  { id: 'uses-long-cache-ttl', title: 'Serve static assets with an efficient cache policy', impact: 'medium' },
  { id: 'unused-css-rules', title: 'Reduce unused CSS', impact: 'medium' },
  { id: 'unused-javascript', title: 'Reduce unused JavaScript', impact: 'medium' },
  { id: 'unminified-css', title: 'Minify CSS', impact: 'medium' },
  { id: 'unminified-javascript', title: 'Minify JavaScript', impact: 'medium' },
  { id: 'uses-http2', title: 'Use HTTP/2', impact: 'medium' },
  { id: 'mainthread-work-breakdown', title: 'Minimize main-thread work', impact: 'medium' },
  { id: 'bootup-time', title: 'Reduce JavaScript execution time', impact: 'medium' },
  { id: 'total-byte-weight', title: 'Avoid enormous network payloads', impact: 'medium' },
  { id: 'prioritize-lcp-image', title: 'Preload Largest Contentful Paint image', impact: 'medium' },
  { id: 'lcp-lazy-loaded', title: 'Largest Contentful Paint image was not lazily loaded', impact: 'medium' },
  { id: 'efficient-animated-content', title: 'Use video formats for animated content', impact: 'low' },
  { id: 'dom-size', title: 'Avoid an excessive DOM size', impact: 'low' },
  { id: 'font-display', title: 'Ensure text remains visible during webfont load', impact: 'low' },
  { id: 'third-party-summary', title: 'Reduce the impact of third-party code', impact: 'low', scoring: 'informative-means-pass' },
  { id: 'third-party-facades', title: 'Lazy load third-party resources with facades', impact: 'low' },
  { id: 'long-tasks', title: 'Avoid long main-thread tasks', impact: 'low', scoring: 'count-items' },
  { id: 'duplicated-javascript', title: 'Remove duplicate modules in JavaScript bundles', impact: 'low' },
  { id: 'legacy-javascript', title: 'Avoid serving legacy JavaScript to modern browsers', impact: 'low' },
  { id: 'uses-rel-preconnect', title: 'Preconnect to required origins', impact: 'low' },
  { id: 'unsized-images', title: 'Image elements have explicit width and height', impact: 'low' },
  { id: 'no-document-write', title: 'Avoid document.write()', impact: 'low' },
  { id: 'uses-passive-event-listeners', title: 'Use passive listeners to improve scrolling performance', impact: 'low' },
  { id: 'layout-shifts', title: 'Avoid large layout shifts', impact: 'low', scoring: 'informative-means-pass' },
  { id: 'non-composited-animations', title: 'Avoid non-composited animations', impact: 'low' },
  { id: 'viewport', title: 'Has a viewport meta tag with width or initial-scale', impact: 'low' },
  { id: 'bf-cache', title: 'Page didn\'t prevent back/forward cache restoration', impact: 'low' },
];

/**
 * Lighthouse 13 audit id → impact. Each Lighthouse 12 audit that 13 removed maps to the insight that replaced it
 * (`replaces`: Lighthouse's own `replacesAudits`, or the "moving to insights" blog for uses-http2 and
 * legacy-javascript); an insight replacing several keeps the highest of their impacts. Audits 13 kept are read as
 * before. Removed without a replacement, and so out of the score: offscreen-images, third-party-facades,
 * no-document-write, uses-passive-event-listeners.
 */
export const LIGHTHOUSE_13_AUDITS: readonly LighthouseAuditSpec[] = [
  { id: 'render-blocking-insight', title: 'Render-blocking requests', impact: 'high', replaces: ['render-blocking-resources'] },
  { id: 'document-latency-insight', title: 'Document request latency', impact: 'high',
    replaces: ['uses-text-compression', 'redirects', 'server-response-time'] },
  { id: 'image-delivery-insight', title: 'Improve image delivery', impact: 'high',
    replaces: ['uses-optimized-images', 'modern-image-formats', 'uses-responsive-images', 'efficient-animated-content'] },
  { id: 'cache-insight', title: 'Use efficient cache lifetimes', impact: 'medium', replaces: ['uses-long-cache-ttl'] },
  { id: 'unused-css-rules', title: 'Reduce unused CSS', impact: 'medium' },
  { id: 'unused-javascript', title: 'Reduce unused JavaScript', impact: 'medium' },
  { id: 'unminified-css', title: 'Minify CSS', impact: 'medium' },
  { id: 'unminified-javascript', title: 'Minify JavaScript', impact: 'medium' },
  { id: 'modern-http-insight', title: 'Modern HTTP', impact: 'medium', replaces: ['uses-http2'] },
  { id: 'mainthread-work-breakdown', title: 'Minimize main-thread work', impact: 'medium' },
  { id: 'bootup-time', title: 'Reduce JavaScript execution time', impact: 'medium' },
  { id: 'total-byte-weight', title: 'Avoid enormous network payloads', impact: 'medium' },
  { id: 'lcp-discovery-insight', title: 'LCP request discovery', impact: 'medium', replaces: ['prioritize-lcp-image', 'lcp-lazy-loaded'] },
  { id: 'dom-size-insight', title: 'Optimize DOM size', impact: 'low', scoring: 'dom-elements', replaces: ['dom-size'] },
  { id: 'font-display-insight', title: 'Font display', impact: 'low', replaces: ['font-display'] },
  { id: 'third-parties-insight', title: '3rd parties', impact: 'low', scoring: 'third-party-time', replaces: ['third-party-summary'] },
  { id: 'long-tasks', title: 'Avoid long main-thread tasks', impact: 'low', scoring: 'count-items' },
  { id: 'duplicated-javascript-insight', title: 'Duplicated JavaScript', impact: 'low', replaces: ['duplicated-javascript'] },
  { id: 'legacy-javascript-insight', title: 'Legacy JavaScript', impact: 'low', replaces: ['legacy-javascript'] },
  { id: 'network-dependency-tree-insight', title: 'Network dependency tree', impact: 'low', replaces: ['uses-rel-preconnect'] },
  { id: 'unsized-images', title: 'Image elements have explicit width and height', impact: 'low' },
  { id: 'cls-culprits-insight', title: 'Layout shift culprits', impact: 'low', scoring: 'informative-means-pass', replaces: ['layout-shifts'] },
  { id: 'non-composited-animations', title: 'Avoid non-composited animations', impact: 'low' },
  { id: 'viewport-insight', title: 'Optimize viewport for mobile', impact: 'low', replaces: ['viewport'] },
  { id: 'bf-cache', title: 'Page didn\'t prevent back/forward cache restoration', impact: 'low' },
];

const SCORED_MODES = new Set(['binary', 'numeric', 'metricSavings']);
/** Lighthouse's pass threshold (its Util.PASS_THRESHOLD): a metricSavings audit scored at least this passed. */
const PASSED = 0.9;
const LONG_TASKS_FOR_ZERO = 10;
/** Lighthouse 12's dom-size passed (scored 0.9 or more) up to its curve's p10 of 818 elements. */
export const DOM_ELEMENTS_PASS = 818;
/** Lighthouse 12's third-party-summary passed while third parties blocked the main thread at most this long. */
export const THIRD_PARTY_PASS_MS = 250;

/** The score of a Lighthouse audit's result under a scoring rule (the table's), before what it names is added. */
export function scoreLighthouseAudit(audit: LhAudit | undefined, scoring: Scoring = 'lighthouse'): AuditOutcome {
  if (!audit) return NOT_APPLICABLE;
  const mode = audit.scoreDisplayMode ?? '';
  const shown = audit.displayValue ? { displayValue: audit.displayValue } : {};
  if (mode === 'error' || mode === 'notApplicable' || mode === 'manual') return NOT_APPLICABLE;
  const items = Array.isArray(audit.details?.items) ? (audit.details.items as unknown[]) : undefined;
  switch (scoring) {
    case 'count-items':
      return items ? { score: clamp01(1 - items.length / LONG_TASKS_FOR_ZERO), ...shown } : NOT_APPLICABLE;
    case 'dom-elements': {
      const elements = audit.numericValue;
      if (typeof elements !== 'number' || !Number.isFinite(elements)) return NOT_APPLICABLE;
      const score = elements <= DOM_ELEMENTS_PASS ? 1 : mode === 'informative' ? 0 : 0.5;
      return { score, displayValue: audit.displayValue ?? `${Math.round(elements)} elements` };
    }
    case 'third-party-time': {
      if (!items) return mode === 'informative' || SCORED_MODES.has(mode) ? { score: 1, ...shown } : NOT_APPLICABLE;
      const ms = items.reduce<number>((sum, row) => {
        const t = (row as { mainThreadTime?: unknown }).mainThreadTime;
        return sum + (typeof t === 'number' && Number.isFinite(t) ? t : 0);
      }, 0);
      return { score: ms <= THIRD_PARTY_PASS_MS ? 1 : 0, displayValue: audit.displayValue ?? `${Math.round(ms)} ms of main-thread time` };
    }
    case 'informative-means-pass':
      if (mode === 'informative') return { score: 1, ...shown };
      break;
    default:
  }
  if (!SCORED_MODES.has(mode) || typeof audit.score !== 'number') return NOT_APPLICABLE;
  // Failed is failed: not 0.5 on a load whose estimated saving rounded to nothing (see the head of this file).
  if (mode === 'metricSavings') return { score: audit.score >= PASSED ? 1 : 0, ...shown };
  return { score: clamp01(audit.score), ...shown };
}

export function lighthouseAudit(spec: LighthouseAuditSpec): StructureAudit {
  return {
    id: spec.id,
    title: spec.title,
    impact: spec.impact,
    source: 'lighthouse',
    run: (input) => {
      const audit = input.audits?.[spec.id];
      const outcome = scoreLighthouseAudit(audit, spec.scoring);
      if (!audit) return outcome;
      const savings = lighthouseSavings(audit);
      return {
        ...outcome,
        ...(typeof audit.title === 'string' && audit.title ? { title: audit.title } : {}),
        ...(savings ? { savings } : {}),
        items: lighthouseItems(audit),
      };
    },
  };
}
