/**
 * The web app's edge: who is signed in (session cookie), CSRF checks, and the security headers of every screen.
 * The rules themselves (tokens, hashing, attempt limits) live in core/accounts/sessions.ts.
 */
import { randomBytes } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/accounts/accounts.js';
import { csrfToken, csrfTokenValid, sessionPrincipal, SESSION_TTL_MS } from '../core/accounts/sessions.js';
import type { AppContext } from '../context/app-context.js';
import { linkOrigin } from '../context/links.js';

export const SESSION_COOKIE = 'webgauge_session';

/** A signed-in request: who, and what its forms must carry. */
export interface Visitor {
  principal: Principal;
  sessionToken: string;
  csrf: string;
}

/** The nonce of this response's script and style elements (CSP). */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The app's CSP: nothing from elsewhere; the script and the stylesheet only with this response's nonce (the report
 * part sets a few colours in style attributes); forms post only here.
 */
export function appCsp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; style-src-attr 'unsafe-inline'; ` +
    "img-src 'self' data:; media-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
}

export function secureHeaders(reply: FastifyReply, nonce: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', appCsp(nonce))
    .header('Referrer-Policy', 'same-origin')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store');
}

function sessionTokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookies(header)[SESSION_COOKIE] || undefined;
}

/** The signed-in visitor of this request, or null. */
export async function visitorOf(ctx: AppContext, req: FastifyRequest): Promise<Visitor | null> {
  const token = sessionTokenOf(req);
  if (!token) return null;
  const principal = await sessionPrincipal(ctx.store.db, ctx.config.plans, token);
  return principal ? { principal, sessionToken: token, csrf: csrfToken(token) } : null;
}

/** Whether the request reached us over HTTPS (directly, through WEBGAUGE_PUBLIC_URL, or a trusted proxy). */
function overHttps(ctx: AppContext, req: FastifyRequest): boolean {
  return linkOrigin(req, ctx.config).startsWith('https:');
}

export function setSessionCookie(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header('Set-Cookie', serializeCookie(SESSION_COOKIE, token, {
    httpOnly: true, sameSite: 'lax', secure: overHttps(ctx, req), path: '/', maxAge: SESSION_TTL_MS / 1000,
  }));
}

export function clearSessionCookie(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('Set-Cookie', serializeCookie(SESSION_COOKIE, '', {
    httpOnly: true, sameSite: 'lax', secure: overHttps(ctx, req), path: '/', maxAge: 0,
  }));
}

/**
 * A state-changing request comes from our own page: its Origin (browsers send it with every POST) is ours, and,
 * once signed in, its form carries the session's CSRF token. SameSite=Lax already keeps the cookie off
 * cross-site POSTs; this holds where a browser does not.
 */
export function sameOrigin(ctx: AppContext, req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  // Our public origin, or (behind a proxy that keeps Host but was not declared) the host the request was sent to.
  return host === new URL(linkOrigin(req, ctx.config)).host || host === req.headers.host;
}

export function csrfValid(visitor: Visitor, form: FormFields): boolean {
  return csrfTokenValid(visitor.sessionToken, form.get('csrf'));
}

/**
 * A form's fields: every value of a name, in order. Forms post application/x-www-form-urlencoded, or
 * multipart/form-data where they carry a file (Analyze's "Recording file"), whose text is the field's value.
 */
export class FormFields {
  private readonly values = new Map<string, string[]>();

  /** An application/x-www-form-urlencoded body. */
  constructor(body: unknown) {
    if (typeof body !== 'string') return;
    for (const [k, v] of new URLSearchParams(body)) this.add(k, v);
  }

  /** The fields of a posted form, in either encoding (the service's catch-all parser hands the body over as text). */
  static async of(req: FastifyRequest): Promise<FormFields> {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\s*;/i.test(type) || typeof req.body !== 'string') return new FormFields(req.body);
    const fields = new FormFields('');
    let parts: FormData;
    try {
      // The platform's own multipart parser (undici's, behind fetch's Response).
      parts = await new Response(req.body, { headers: { 'content-type': type } }).formData();
    } catch {
      return fields; // a malformed body is a form without fields: no CSRF token, so "Form expired"
    }
    for (const [k, v] of parts) {
      if (typeof v === 'string') fields.add(k, v);
      else if (v.size > 0) fields.add(k, await v.text()); // a file input left empty sends a nameless empty file
    }
    return fields;
  }

  private add(k: string, v: string): void {
    const list = this.values.get(k);
    if (list) list.push(v);
    else this.values.set(k, [v]);
  }

  get(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }

  all(name: string): string[] {
    return this.values.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.values.has(name);
  }
}
