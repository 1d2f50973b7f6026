/**
 * Avoid empty src or href (ours). An <img src="">, <script src="">, <iframe src=""> or stylesheet link with
 * an empty href makes the browser request the page itself again (or nothing, depending on the element and
 * browser): wasted work at best, a second page view on the server at worst. Needs the DOM facts.
 * score = 0 with any such element, else 1.
 */
import { NOT_APPLICABLE, type StructureAudit } from './audit.js';

export const avoidEmptySrc: StructureAudit = {
  id: 'avoid-empty-src',
  title: 'Avoid empty src or href',
  impact: 'medium',
  source: 'webgauge',
  run(input) {
    if (!input.facts) return NOT_APPLICABLE;
    const empty = input.facts.dom.emptySrc;
    return { score: empty.length === 0 ? 1 : 0, offenders: empty.map((tag) => `<${tag}> with an empty URL`) };
  },
};
