/**
 * The web app, served at `/` by the API's process: a client of the same core as the API (no rule of its own
 * beyond presentation). Screens: sign in, Analyze, a test's progress, the report, Pages, a page's history,
 * Compare, Tags, Account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../api/context.js';
import type { ReportRow } from '../core/reports.js';
import { registerAssets } from './assets.js';
import { WebKit } from './kit.js';
import { analyzeScreen, registerAnalyze } from './screens/analyze.js';
import { registerSignIn } from './screens/sign-in.js';
import { registerProgress } from './screens/progress.js';
import { registerReportScreens } from './screens/report.js';
import { registerPageScreens } from './screens/pages.js';
import { registerCompare } from './screens/compare.js';
import { registerTagScreens } from './screens/tags.js';
import { registerAccountScreen } from './screens/account.js';

export type OwnerReportView = (req: FastifyRequest, reply: FastifyReply, report: ReportRow) => Promise<FastifyReply | undefined>;

export function registerWebApp(app: FastifyInstance, ctx: AppContext): OwnerReportView {
  const kit = new WebKit(app, ctx);
  registerAssets(app);
  registerSignIn(kit, async (_req, _reply, v, nonce) => analyzeScreen(kit, v, nonce));
  registerAnalyze(kit);
  registerProgress(kit);
  registerPageScreens(kit);
  registerCompare(kit);
  registerTagScreens(kit);
  registerAccountScreen(kit);
  return registerReportScreens(kit);
}
