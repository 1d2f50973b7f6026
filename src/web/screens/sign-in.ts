/** Sign in (e-mail and password, or the API key) and sign out. */
import { createSession, endSession, signIn, SIGN_IN_LIMIT, type Credentials } from '../../core/accounts/sessions.js';
import { clearSessionCookie, FormFields, newNonce, sameOrigin, setSessionCookie, visitorOf } from '../session.js';
import { errorBox, esc, seeOther, sendHtml, shell, type WebKit } from '../kit.js';

/** Only a path of this app: never another site (an open redirect would make our sign-in a phishing tool). */
export function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[^\s]*$/.test(next) && !next.startsWith('/sign-') ? next : '/';
}

export function signInScreen(nonce: string, o: { error?: string; email?: string; next?: string } = {}): string {
  const next = o.next && o.next !== '/' ? `<input type="hidden" name="next" value="${esc(o.next)}">` : '';
  const body = `<div class="signin"><h1>Sign in to Webgauge</h1>${errorBox(o.error)}
<form class="card" method="post" action="/sign-in" aria-labelledby="with-password">${next}
<h2 id="with-password">With your e-mail and password</h2>
<div class="field"><label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(o.email ?? '')}"></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button class="btn" type="submit">Sign in</button></form>
<form class="card" method="post" action="/sign-in" aria-labelledby="with-key">${next}
<h2 id="with-key">With your API key</h2>
<div class="field"><label for="api_key">API key</label><input id="api_key" name="api_key" type="password" autocomplete="off" required aria-describedby="api_key-hint">
<span class="hint" id="api_key-hint">The key printed when the account was created (or by <code>webgauge key regenerate</code>).</span></div>
<button class="btn" type="submit">Sign in</button></form>
<p class="muted">Passwords are set by the operator: <code>webgauge account password --email E --password-stdin</code>.</p></div>`;
  return shell(null, nonce, { title: 'Sign in', body });
}

export function registerSignIn(kit: WebKit, analyzeScreen: Parameters<WebKit['screen']>[1]): void {
  const { app, ctx } = kit;

  app.get('/', async (req, reply) => {
    const v = await visitorOf(ctx, req);
    const nonce = newNonce();
    if (!v) {
      const next = (req.query as Record<string, string | string[] | undefined>).next;
      return sendHtml(reply, nonce, signInScreen(nonce, { next: safeNext(typeof next === 'string' ? next : undefined) }));
    }
    const html = await analyzeScreen(req, reply, v, nonce);
    return typeof html === 'string' ? sendHtml(reply, nonce, html) : html;
  });

  app.post('/sign-in', async (req, reply) => {
    const nonce = newNonce();
    const form = new FormFields(req.body);
    const next = safeNext(form.get('next'));
    const email = form.get('email')?.trim() ?? '';
    if (!sameOrigin(ctx, req)) return sendHtml(reply, nonce, signInScreen(nonce, { error: 'This form was not sent from this page; open it again.', next }), 403);
    const apiKey = form.get('api_key');
    let credentials: Credentials;
    if (apiKey !== undefined) credentials = { apiKey };
    else if (email && form.get('password')) credentials = { email, password: form.get('password')! };
    else return sendHtml(reply, nonce, signInScreen(nonce, { error: 'Give your e-mail and password, or your API key.', email, next }), 400);

    const outcome = await signIn(ctx.store.db, ctx.config.plans, ctx.rateLimiter, credentials, req.ip);
    if (!outcome.ok) {
      if (outcome.reason === 'limited') {
        const minutes = Math.ceil((outcome.retryAfterSeconds ?? SIGN_IN_LIMIT.windowSeconds) / 60);
        reply.header('Retry-After', String(outcome.retryAfterSeconds ?? SIGN_IN_LIMIT.windowSeconds));
        return sendHtml(reply, nonce, signInScreen(nonce, { error: `Too many sign-in attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, email, next }), 429);
      }
      const error = 'email' in credentials ? 'Wrong e-mail or password.' : 'That API key is not valid.';
      return sendHtml(reply, nonce, signInScreen(nonce, { error, email, next }), 401);
    }
    setSessionCookie(ctx, req, reply, await createSession(ctx.store.db, outcome.accountId));
    return seeOther(reply, next);
  });

  // Signing out needs no CSRF token: the worst a forged one does is sign someone out.
  app.post('/sign-out', async (req, reply) => {
    const v = await visitorOf(ctx, req);
    if (v && sameOrigin(ctx, req)) await endSession(ctx.store.db, v.sessionToken);
    clearSessionCookie(ctx, req, reply);
    return seeOther(reply, '/');
  });
}
