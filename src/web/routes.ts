/**
 * The web app, served at `/` by the API's process: a client of the same core as the API (no rule of its own
 * beyond presentation). Screens: sign in, Analyze, a test's progress, the report, Pages, a page's history,
 * Compare, Scans and a scan's site report, Field (real visitors' figures), Tags, Account.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context/app-context.js';
import { registerAssets } from './assets.js';
import { registerFieldSnippet } from './field-snippet.js';
import { errorScreen, WebKit } from './kit.js';
import { newNonce } from './session.js';
import type { ApiError } from '../core/errors.js';
import { analyzeScreen, registerAnalyze } from './screens/analyze.js';
import { registerSignIn } from './screens/sign-in.js';
import { registerProgress } from './screens/progress.js';
import { registerReportScreens } from './screens/report.js';
import { registerPageScreens } from './screens/pages.js';
import { registerCompare } from './screens/compare.js';
import { registerScanScreens } from './screens/scans.js';
import { registerTagScreens } from './screens/tags.js';
import { registerFieldScreens } from './screens/field.js';
import { registerFieldAlertScreens } from './screens/field-alerts.js';
import { registerAccountScreen } from './screens/account.js';
import { registerReportPage } from './report-page.js';
import { registerHelp } from './screens/help.js';

/**
 * The web app's screens and the public report page (which shows its own account the report inside the app). Returns
 * the page for errors that reach the server's one error handler (the database away, the disk full, a bug): the
 * visitor is not known then (finding out needs the database), so the page is the signed-out shell.
 */
export function registerWebApp(app: FastifyInstance, ctx: AppContext): (reply: FastifyReply, err: ApiError) => FastifyReply {
  const kit = new WebKit(app, ctx);
  registerAssets(app);
  registerFieldSnippet(app);
  registerSignIn(kit, async (_req, _reply, v, nonce) => analyzeScreen(kit, v, nonce));
  registerAnalyze(kit);
  registerProgress(kit);
  registerPageScreens(kit);
  registerCompare(kit);
  registerScanScreens(kit);
  registerTagScreens(kit);
  registerFieldScreens(kit);
  registerFieldAlertScreens(kit);
  registerAccountScreen(kit);
  registerHelp(app, ctx);
  registerReportPage(app, ctx, registerReportScreens(kit));
  return (reply, err) => errorScreen(reply, null, newNonce(), err.status, err.status === 503 ? 'Webgauge is unavailable' : err.title, err.detail ?? err.title);
}
