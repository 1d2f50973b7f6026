/**
 * "How the scores are made" (/help/scores): the grade, the performance and structure scores and the Web Vitals' limits,
 * written from the tables that make them (analysis/grade.ts, the structure audits, the one table of figures), so this
 * page cannot drift from the numbers. Public, like the report page that links it; signed in, it has the navigation.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context/app-context.js';
import { GRADE_FLOORS, GRADE_WEIGHTS, IMPACT_WEIGHT, type Impact } from '../../analysis/grade.js';
import { STRUCTURE_AUDIT_LIST } from '../../analysis/structure/index.js';
import { bandsText, figure, RATED_FIGURES, titleOf } from '../../analysis/figures.js';
import { inlineMarkdown } from '../../report/format.js';
import { SCORES_HELP_PATH } from '../../report/page.js';
import { esc, sendHtml, shell } from '../kit.js';
import { newNonce, visitorOf } from '../session.js';

const percentOf = (weight: number) => `${Math.round(weight * 100)}%`;

export function scoresHelpBody(): string {
  const letters = GRADE_FLOORS.map(([letter, floor], i) =>
    `<tr><th scope="row">${letter}</th><td>${floor}% ${i === 0 ? 'or more' : `to ${GRADE_FLOORS[i - 1]![1]}%`}</td></tr>`).join('') +
    `<tr><th scope="row">F</th><td>below ${GRADE_FLOORS[GRADE_FLOORS.length - 1]![1]}%</td></tr>`;
  const impacts = (Object.keys(IMPACT_WEIGHT) as Impact[]);
  const audits = impacts.flatMap((impact) => STRUCTURE_AUDIT_LIST.filter((a) => a.impact === impact)
    .map((a) => `<tr><td>${inlineMarkdown(a.title)}</td><td>${impact} (×${IMPACT_WEIGHT[impact]})</td>` +
      `<td>${a.source === 'lighthouse' ? 'Lighthouse' : 'Webgauge'}</td></tr>`)).join('');
  const vitals = RATED_FIGURES.map((name) => `<tr><th scope="row">${esc(titleOf(figure(name)))}</th><td>${esc(bandsText(name))}</td></tr>`).join('');
  return `<h1>How the scores are made</h1>
<section class="card help-part" aria-labelledby="help-grade"><h2 id="help-grade">Grade</h2>
<p>The grade's percent is ${percentOf(GRADE_WEIGHTS.performance)} of the performance score plus ${percentOf(GRADE_WEIGHTS.structure)} of the
structure score; its letter comes from the exact percent (89.6% is a B, shown as 90%).</p>
<div class="tablewrap"><table class="list help-grades"><thead><tr><th scope="col">Letter</th><th scope="col">Percent</th></tr></thead><tbody>${letters}</tbody></table></div></section>
<section class="card help-part" aria-labelledby="help-performance"><h2 id="help-performance">Performance</h2>
<p>Lighthouse's performance score of the load the report shows: Lighthouse rates each of its metrics (first contentful paint,
speed index, largest contentful paint, total blocking time, cumulative layout shift) on its own curves, desktop ones for a desktop
test and mobile ones for a simulated phone or tablet, and weights them. Each report links Lighthouse's own report of the load,
which shows the metrics' weights and scores.</p></section>
<section class="card help-part" aria-labelledby="help-structure"><h2 id="help-structure">Structure</h2>
<p>The mean of the structure audits' scores (each 0 to 100%), weighted by the audit's impact: ${impacts.map((i) => `${i} ×${IMPACT_WEIGHT[i]}`).join(', ')}.
An audit that does not apply to the page (no images, no third parties) is left out of the mean. A report's Structure part lists each
audit with its score, what it found and what fixing it would save.</p>
<div class="tablewrap"><table class="list help-audits"><thead><tr><th scope="col">Audit</th><th scope="col">Impact</th><th scope="col">From</th></tr></thead>
<tbody>${audits}</tbody></table></div></section>
<section class="card help-part" aria-labelledby="help-vitals"><h2 id="help-vitals">Web Vitals' limits</h2>
<p>Each figure is rated good, needs improvement or poor by these limits (the report's cards and the coloured cells of lists use them).</p>
<div class="tablewrap"><table class="list help-vitals"><tbody>${vitals}</tbody></table></div></section>
<p class="muted">The same, with the API's fields, is in the project's docs/api.md ("Grade") and docs/scans.md.</p>`;
}

export function registerHelp(app: FastifyInstance, ctx: AppContext): void {
  app.get(SCORES_HELP_PATH, async (req, reply) => {
    const v = await visitorOf(ctx, req);
    const nonce = newNonce();
    return sendHtml(reply, nonce, shell(v, nonce, { title: 'How the scores are made', body: scoresHelpBody() }));
  });
}
