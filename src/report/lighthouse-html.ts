/**
 * Lighthouse's own HTML report, drawn by Lighthouse's report generator from the stored lighthouse.json: the
 * report people know from DevTools and PageSpeed Insights, with every audit's details. Made on request (it is a
 * pure function of the stored JSON, so nothing more is kept per report) and served under a policy that lets its
 * inline renderer run and nothing else: no request leaves the page, and the sandbox gives it an origin of its own,
 * so a hostile page's strings in the JSON can reach neither the service's cookies nor its API.
 */
import { ReportGenerator } from 'lighthouse/report/generator/report-generator.js';
import type { FlowResult, Result } from 'lighthouse';
import type { ArtifactStore } from '../artifacts/store.js';
import { ARTIFACT, artifactKey, reportResources, type ReportRow } from '../core/reports/reports.js';

/** The report renders from inline script and style, with data: images (the screenshots); it loads nothing else. */
export const LIGHTHOUSE_HTML_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
  "img-src data:; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
  'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox allow-downloads';

/** The HTML of the report from the stored Lighthouse result (its JSON text). */
export function lighthouseHtml(lighthouseJson: Buffer | string): string {
  const lhr = JSON.parse(lighthouseJson.toString()) as Result;
  return ReportGenerator.generateReportHtml(lhr);
}

/** Lighthouse's own report of a user flow (a journey's steps), from the stored FlowResult (flow.json). */
export function flowHtml(flowJson: Buffer | string): string {
  return ReportGenerator.generateFlowReportHtml(JSON.parse(flowJson.toString()) as FlowResult);
}

/** Lighthouse's reports the service renders from a stored result: the load's (lighthouse.html) and a journey's (flow.html). */
const RENDERED = {
  lighthouse: { artifact: ARTIFACT.lighthouse, render: lighthouseHtml },
  flow: { artifact: ARTIFACT.flow, render: flowHtml },
} as const;

/**
 * The report's Lighthouse HTML (the API's resource and the page next to the report page), or undefined without one:
 * `lighthouse` for the load's report, `flow` for a journey's flow report.
 */
export async function storedLighthouseHtml(artifacts: ArtifactStore, report: ReportRow, which: keyof typeof RENDERED = 'lighthouse'):
Promise<string | undefined> {
  const { artifact, render } = RENDERED[which];
  if (!reportResources(report).has(artifact)) return undefined;
  const json = await artifacts.get(artifactKey(report.id, artifact));
  return json ? render(json) : undefined;
}
