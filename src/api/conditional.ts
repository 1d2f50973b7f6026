/**
 * Conditional GET (RFC 9110 §13.1.2): a report and its resources never change after completion (only the page's
 * tags in the report do, and they are part of the report's body, so of its tag), so a client that kept the
 * ETag gets 304 and no body.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A strong entity tag for the representation made of `parts` (a body, or what fixes one). */
export function entityTag(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return `"${h.digest('base64url').slice(0, 27)}"`;
}

/** If-None-Match compares weakly: `W/"x"` matches `"x"`; `*` matches any existing representation. */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * Sets the ETag; when the request's If-None-Match names it, answers 304 (keeping the headers already set, such
 * as Cache-Control) and returns true: the caller sends nothing more.
 */
export function answeredNotModified(req: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('ETag', etag);
  const header = req.headers['if-none-match'];
  if (header === undefined || !matches(header, etag)) return false;
  void reply.code(304).send();
  return true;
}
