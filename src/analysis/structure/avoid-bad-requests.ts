/**
 * Avoid bad requests (ours). Every response with status 400 or above (a 404 image, a 500 API call) costs a
 * round trip for nothing. score = max(0, 1 − 0.2 × bad responses): five or more score 0.
 */
import { isBad, shortUrl } from '../har.js';
import { clamp01, NOT_APPLICABLE, type StructureAudit } from './audit.js';

export const POINTS_PER_BAD_REQUEST = 0.2;

export const avoidBadRequests: StructureAudit = {
  id: 'avoid-bad-requests',
  title: 'Avoid bad requests',
  impact: 'medium',
  source: 'webgauge',
  run(input) {
    if (!input.har) return NOT_APPLICABLE;
    const bad = input.har.log.entries.filter(isBad);
    return {
      score: clamp01(1 - POINTS_PER_BAD_REQUEST * bad.length),
      displayValue: `${bad.length} request${bad.length === 1 ? '' : 's'} failed`,
      offenders: bad.map((e) => `${e.response.status} ${shortUrl(e.request.url)}`),
    };
  },
};
