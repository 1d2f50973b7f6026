import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/accounts/accounts.js';
import { ApiError } from '../core/errors.js';
import type { AppContext } from '../context/app-context.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export const CHALLENGE = 'Basic realm="Webgauge API"';

/** The API key from `Authorization: Basic base64(key:)`; undefined when there is none. */
export function apiKeyFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const key = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
  return key.trim() || undefined;
}

/**
 * Authenticate, then count the request against the account's rate limit. Challenges (401) are not counted:
 * some clients send credentials only after a challenge (COMPAT.md).
 */
export async function authenticateRequest(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<Principal> {
  const key = apiKeyFrom(req.headers.authorization);
  if (!key) {
    throw new ApiError('E40100', 'Authenticate with HTTP Basic: your API key as the user name and an empty password.', {
      'WWW-Authenticate': CHALLENGE,
    });
  }
  const principal = await ctx.principals.get(key);
  if (!principal) {
    throw new ApiError('E40100', 'The API key is not valid; check it or generate a new one.', { 'WWW-Authenticate': CHALLENGE });
  }
  if (!principal.emailValidated) {
    throw new ApiError('E40300', 'Validate the e-mail address of this account before using the API.');
  }
  const rl = await ctx.rateLimiter.hit(principal.accountId, principal.plan.rateLimit, principal.plan.rateWindowSeconds);
  reply.header('X-RateLimit-Limit', `${rl.limit}, ${rl.limit};window=${rl.windowSeconds}`);
  reply.header('X-RateLimit-Remaining', String(rl.remaining));
  reply.header('X-RateLimit-Reset', String(rl.reset));
  if (rl.exceeded) {
    throw new ApiError('E42901', `Rate limit of ${rl.limit} requests per ${rl.windowSeconds} s exceeded; retry in ${rl.reset} s.`, {
      'Retry-After': String(rl.reset),
    });
  }
  req.principal = principal;
  return principal;
}

export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new Error('route reached without authentication');
  return req.principal;
}
