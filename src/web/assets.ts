/**
 * The app's script (compiled from client/app.ts by `npm run build`, tsconfig.web.json) and stylesheet (the report
 * page's and the app's), served by the service under names that change with their content, so browsers keep them
 * for a year and each screen sends only its HTML.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { REPORT_CSS } from '../report/style.js';
import { APP_CSS } from './style.js';

/** dist/web/client/app.js next to the built module; from the sources (tests under tsx), the built copy. */
const CANDIDATES = ['./client/app.js', '../../dist/web/client/app.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

function findScript(): string {
  const file = CANDIDATES.find((f) => existsSync(f));
  if (!file) throw new Error(`the web app's script is not built (looked for ${CANDIDATES.join(', ')}); run npm run build`);
  return file;
}

const hashed = (body: Buffer, ext: string) => `/assets/app.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

/** The built script served to browsers. */
export const CLIENT_SCRIPT_FILE = findScript();
const script = readFileSync(CLIENT_SCRIPT_FILE);
export const CLIENT_SCRIPT_PATH = hashed(script, 'js');
const stylesheet = Buffer.from(REPORT_CSS + APP_CSS);
export const STYLESHEET_PATH = hashed(stylesheet, 'css');

export function registerAssets(app: FastifyInstance): void {
  const asset = (path: string, type: string, body: Buffer) => app.get(path, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff').type(type).send(body));
  asset(CLIENT_SCRIPT_PATH, 'text/javascript; charset=utf-8', script);
  asset(STYLESHEET_PATH, 'text/css; charset=utf-8', stylesheet);
}
