/**
 * The app's script, compiled from client/app.ts by `npm run build` (tsconfig.web.json) and served by the service
 * under a name that changes with its content, so browsers may keep it for a year.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** dist/web/client/app.js next to the built module; from the sources (tests under tsx), the built copy. */
const CANDIDATES = ['./client/app.js', '../../dist/web/client/app.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

function findScript(): string {
  const file = CANDIDATES.find((f) => existsSync(f));
  if (!file) throw new Error(`the web app's script is not built (looked for ${CANDIDATES.join(', ')}); run npm run build`);
  return file;
}

/** The built script served to browsers. */
export const CLIENT_SCRIPT_FILE = findScript();
const script = readFileSync(CLIENT_SCRIPT_FILE);
const hash = createHash('sha256').update(script).digest('hex').slice(0, 12);
export const CLIENT_SCRIPT_PATH = `/assets/app.${hash}.js`;
export const CLIENT_SCRIPT_BYTES = script.length;

export function registerAssets(app: FastifyInstance): void {
  app.get(CLIENT_SCRIPT_PATH, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff')
      .type('text/javascript; charset=utf-8').send(script));
}
