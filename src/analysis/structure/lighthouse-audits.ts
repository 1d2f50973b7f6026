/**
 * Structure audits taken from Lighthouse 12's non-metric performance audits: one generic factory that reads
 * `lhr.audits[id]`, and the table of which audits count and with what impact.
 *
 * Scoring: Lighthouse's own score (0-1). In Lighthouse 12 the "metricSavings" audits score 1 (passed),
 * 0.5 (failed without a measurable metric saving) or 0 (failed with one). `notApplicable`, `error` and `manual`
 * results are left out. `informative` results are left out too, except for:
 * - audits that turn informative when they pass (third-party-summary, layout-shifts): they count as 1;
 * - long-tasks, always informative: scored here as max(0, 1 − n / 10) for its n listed long tasks.
 */
import { clamp01, NOT_APPLICABLE, type AuditOutcome, type Impact, type LhAudit, type StructureAudit } from './audit.js';

type Scoring = 'lighthouse' | 'informative-means-pass' | 'count-items';

interface LighthouseAuditSpec {
  id: string;
  title: string;
  impact: Impact;
  scoring?: Scoring;
}

/** Lighthouse 12.8 audit id → impact (high 3, medium 2, low 1). Titles are Lighthouse's. */
export const LIGHTHOUSE_STRUCTURE_AUDITS: readonly LighthouseAuditSpec[] = [
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

const SCORED_MODES = new Set(['binary', 'numeric', 'metricSavings']);
const LONG_TASKS_FOR_ZERO = 10;

export function scoreLighthouseAudit(audit: LhAudit | undefined, scoring: Scoring = 'lighthouse'): AuditOutcome {
  if (!audit) return NOT_APPLICABLE;
  const mode = audit.scoreDisplayMode ?? '';
  const shown = audit.displayValue ? { displayValue: audit.displayValue } : {};
  if (scoring === 'count-items') {
    if (mode === 'error' || mode === 'notApplicable' || !Array.isArray(audit.details?.items)) return NOT_APPLICABLE;
    return { score: clamp01(1 - audit.details.items.length / LONG_TASKS_FOR_ZERO), ...shown };
  }
  if (mode === 'informative' && scoring === 'informative-means-pass') return { score: 1, ...shown };
  if (!SCORED_MODES.has(mode) || typeof audit.score !== 'number') return NOT_APPLICABLE;
  return { score: clamp01(audit.score), ...shown };
}

export function lighthouseAudit(spec: LighthouseAuditSpec): StructureAudit {
  return {
    id: spec.id,
    title: spec.title,
    impact: spec.impact,
    source: 'lighthouse',
    run: (input) => scoreLighthouseAudit(input.audits?.[spec.id], spec.scoring),
  };
}
