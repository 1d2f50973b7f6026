/**
 * What every screen of the web app is built with: the page shell (navigation, stylesheet, script, CSP nonce),
 * the signed-in route wrappers (GET screens and POST actions with their CSRF check), and error screens.
 * Screens are server-rendered HTML that works without script; the one script (client/app.ts) only adds live
 * progress and confirmations.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { AppContext } from '../context/app-context.js';
import { esc } from '../report/format.js';
import { FAVICON_LINK } from '../report/style.js';
import { csrfValid, FormFields, newNonce, sameOrigin, secureHeaders, visitorOf, type Visitor } from './session.js';
import { CLIENT_SCRIPT_PATH, STYLESHEET_PATH } from './assets.js';

export { esc };
export type NavItem = 'analyze' | 'pages' | 'scans' | 'field' | 'tags' | 'account';

const NAV: [NavItem, string, string][] = [
  ['analyze', 'Analyze', '/'], ['pages', 'Pages', '/pages'], ['scans', 'Scans', '/scans'], ['field', 'Field', '/field'], ['tags', 'Tags', '/tags'], ['account', 'Account', '/account'],
];

export interface Shell {
  title: string;
  active?: NavItem;
  /** Inside <main>. */
  body: string;
  /** Between the navigation and <main> (the report's own header and its tabs). */
  before?: string;
  /** <main> without the app's padding (the report brings its own). */
  bare?: boolean;
  /** More of <head>. */
  head?: string;
}

/** A whole HTML document of the app. Signed out, the navigation is only the name. */
export function shell(v: Visitor | null, nonce: string, s: Shell): string {
  const links = v
    ? NAV.map(([key, name, href]) => `<li><a class="nav" href="${href}"${s.active === key ? ' aria-current="page"' : ''}>${name}</a></li>`).join('') +
      `<li><form method="post" action="/sign-out">${csrfField(v)}<button type="submit">Sign out</button></form></li>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${esc(s.title)} · Webgauge</title>
<link rel="stylesheet" nonce="${nonce}" href="${STYLESHEET_PATH}">${FAVICON_LINK}${s.head ?? ''}</head><body>
<a class="skip" href="#main">Skip to content</a>
<nav class="appnav" aria-label="Main"><div class="wrap"><a class="logo" href="/">Webgauge</a><ul>${links}</ul></div></nav>
${s.before ?? ''}<main id="main" class="wrap${s.bare ? '' : ' app'}">${s.body}</main>
<script nonce="${nonce}" src="${CLIENT_SCRIPT_PATH}" defer></script></body></html>`;
}

/**
 * A URL as HTML that may wrap where a URL reads well: after each "/", "?", "&" and "=" (a <wbr> there), never inside a
 * word of it (the stylesheet breaks a word only when it alone is wider than its line). Chromium names a <wbr> as a
 * space: the element that holds it takes the URL as its name (aria-label), as urlLink does.
 */
export const urlBreaks = (url: string): string => url.split(/(?<=[/?&=])/).map(esc).join('<wbr>');

/** A link whose text is a URL (urlBreaks), named by the URL as written. */
export const urlLink = (href: string, url: string): string => `<a href="${esc(href)}" aria-label="${esc(url)}">${urlBreaks(url)}</a>`;

/** The attribute that marks the chosen option or box of a form shown again. */
export const selected = (cond: boolean): string => (cond ? ' selected' : '');
export const checked = (cond: boolean): string => (cond ? ' checked' : '');

/**
 * A form field: its label alone names the control; the hint (HTML), shown between them, is the control's description.
 * `control` gets the attribute that ties it to the hint (empty without one).
 */
export function formField(id: string, label: string, control: (describedBy: string) => string, hint?: string, cls = 'field'): string {
  return `<div class="${cls}"><label for="${id}">${label}</label>` +
    `${hint ? `<span class="hint" id="${id}-hint">${hint}</span>` : ''}${control(hint ? ` aria-describedby="${id}-hint"` : '')}</div>`;
}

export const csrfField = (v: Visitor): string => `<input type="hidden" name="csrf" value="${esc(v.csrf)}">`;

/**
 * A one-button form posting to `action` (retest, delete...); `confirm` asks first (client script). `name` is the
 * button's accessible name where its label alone is one of many in a list (it starts with the label).
 */
export function actionButton(v: Visitor, action: string, label: string,
  o: { confirm?: string; style?: 'secondary' | 'danger' | 'secondary small' | 'danger small'; hidden?: Record<string, string>; name?: string } = {}): string {
  const hidden = Object.entries(o.hidden ?? {}).map(([k, val]) => `<input type="hidden" name="${esc(k)}" value="${esc(val)}">`).join('');
  return `<form method="post" action="${esc(action)}"${o.confirm ? ` data-confirm="${esc(o.confirm)}"` : ''}>${csrfField(v)}${hidden}` +
    `<button type="submit" class="btn${o.style ? ` ${o.style}` : ''}"${o.name ? ` aria-label="${esc(o.name)}"` : ''}>${esc(label)}</button></form>`;
}

/**
 * A refused form's error: the API's title and detail, and each bad line of a field that takes one entry a line, named
 * by its field (the field's id, to link to it) and its line number.
 */
export interface FormError {
  message: string;
  lines: { field: string; label: string; text: string }[];
}

/** A field's entries as a form sends them, one a line (blank lines left out), with each entry's line number (from 1). */
export function formLines(text: string | undefined): { entries: string[]; lineOf: number[] } {
  const entries: string[] = [];
  const lineOf: number[] = [];
  (text ?? '').split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    entries.push(line.trim());
    lineOf.push(i + 1);
  });
  return { entries, lineOf };
}

/**
 * The API's refusal as the form shows it. `lists` gives the label of each of the form's one-entry-a-line fields, by the
 * list attribute it sends (the field's name; its id is f-NAME): each refused entry of those becomes its field's line ("Alert conditions, line 3: ...", `name[i]` in the API's words said as "line N").
 */
export function formError(err: ApiError, form?: FormFields, lists: Record<string, string> = {}): FormError {
  const lines: FormError['lines'] = [];
  for (const e of err.entries) {
    const label = lists[e.list];
    if (label === undefined || !form) continue;
    const { lineOf } = formLines(form.get(e.list));
    const lineName = (i: number) => `line ${lineOf[i] ?? i + 1}`;
    const at = new RegExp(`${e.list}\\[(\\d+)\\](?:\\.(\\w+))?`, 'g');
    const text = e.detail.replace(at, (_m, i: string, member?: string) => `${lineName(Number(i))}${member ? ` (${member})` : ''}`);
    lines.push({ field: `f-${e.list}`, label, text });
  }
  if (lines.length === 0) return { message: `${err.title}: ${err.detail ?? ''}`, lines };
  // Entries of a list the form has no field for keep the API's own words.
  const rest = err.entries.length > lines.length ? ` ${err.detail ?? ''}` : '';
  return { message: `${err.title}: ${lines.length === 1 ? 'one line is' : `${lines.length} lines are`} refused.${rest}`, lines };
}

/**
 * A form's error where the form is: a summary that takes the focus when the screen opens (autofocus; the client
 * script also brings it to the middle of the view), so that a long page shown again after a refused post opens on its
 * error, not at its top. Each bad line links to its field.
 */
export function errorBox(error: string | FormError | undefined): string {
  if (!error) return '';
  const e = typeof error === 'string' ? { message: error, lines: [] } : error;
  const lines = e.lines.length
    ? `<ul>${e.lines.map((l) => `<li><a href="#${esc(l.field)}">${esc(l.label)}</a>: ${esc(l.text)}</li>`).join('')}</ul>`
    : '';
  return `<div class="error form-error" id="form-error" tabindex="-1" autofocus data-form-error role="alert">${esc(e.message)}${lines}</div>`;
}

/**
 * A form's refusal by core (an ApiError with the API's words), to show on the form again with the API's status; anything
 * else (a bug, the Viewer role, with `notFound`: a 404) is thrown on to the kit's error screen.
 */
export function formRefusal(reply: FastifyReply, err: unknown, o: { notFound?: 'screen' } = {}): ApiError {
  if (!(err instanceof ApiError) || err.code === 'E40301' || (o.notFound === 'screen' && err.status === 404)) throw err;
  reply.code(err.status);
  return err;
}

export type ScreenHandler = (req: FastifyRequest, reply: FastifyReply, v: Visitor, nonce: string) => Promise<string | FastifyReply>;
export type ActionHandler = (req: FastifyRequest, reply: FastifyReply, v: Visitor, form: FormFields, nonce: string) => Promise<string | FastifyReply>;

export function sendHtml(reply: FastifyReply, nonce: string, html: string, status = 200): FastifyReply {
  return secureHeaders(reply, nonce).code(status).type('text/html; charset=utf-8').send(html);
}

export const seeOther = (reply: FastifyReply, location: string): FastifyReply => reply.code(303).header('Location', location).send();

/**
 * The screen of the app the request came from (its Referer, when it is one of ours and not this very screen), as a path:
 * where an error screen sends the person back to.
 */
export function cameFrom(req: FastifyRequest): string | undefined {
  const referer = req.headers.referer;
  if (!referer) return undefined;
  try {
    const from = new URL(referer);
    const path = `${from.pathname}${from.search}`;
    if (from.host !== req.headers.host || !path.startsWith('/') || path.startsWith('//')) return undefined;
    return req.method === 'GET' && path === req.url ? undefined : path;
  } catch {
    return undefined;
  }
}

/**
 * An error as a screen: the API's status, title and detail, so the app says what the API would; with a way back to the
 * screen the person came from (the Compare button of a page view, a form...), and to Analyze.
 */
export function errorScreen(reply: FastifyReply, v: Visitor | null, nonce: string, status: number, title: string, detail: string): FastifyReply {
  // A screen that is only unavailable for now is worth asking for again (a form's answer is not: reloading resends it).
  const again = status === 503 && reply.request.method === 'GET' ? `<a href="${esc(reply.request.url)}">Try again</a> · ` : '';
  const from = cameFrom(reply.request);
  const back = from ? `<a href="${esc(from)}">Back to the previous screen</a> · ` : '';
  const body = `<h1>${esc(title)}</h1><div class="error" role="alert">${esc(detail)}</div><p>${back}${again}<a href="/">Back to Analyze</a></p>`;
  return sendHtml(reply, nonce, shell(v, nonce, { title, body }), status);
}

export class WebKit {
  constructor(
    readonly app: FastifyInstance,
    readonly ctx: AppContext,
  ) {}

  /** A screen for signed-in people; others go to sign in and come back. */
  screen(path: string, handler: ScreenHandler): void {
    const { ctx } = this;
    this.app.get(path, async (req, reply) => {
      const v = await visitorOf(ctx, req);
      if (!v) return seeOther(reply, `/?next=${encodeURIComponent(req.url)}`);
      const nonce = newNonce();
      return this.respond(reply, v, nonce, () => handler(req, reply, v, nonce));
    });
  }

  /**
   * A state-changing form post: signed in, from our own origin, with the session's CSRF token; then the handler,
   * which answers with a redirect (post/redirect/get) or a screen (a form shown again with its error).
   */
  action(path: string, handler: ActionHandler): void {
    const { ctx } = this;
    this.app.post(path, async (req, reply) => {
      const v = await visitorOf(ctx, req);
      const nonce = newNonce();
      if (!v) return seeOther(reply, '/');
      const form = await FormFields.of(req);
      if (!sameOrigin(ctx, req) || !csrfValid(v, form)) {
        return errorScreen(reply, v, nonce, 403, 'Form expired', 'This form was not sent from this page of Webgauge (or your session changed); open the page again and resend it.');
      }
      return this.respond(reply, v, nonce, () => handler(req, reply, v, form, nonce));
    });
  }

  private async respond(reply: FastifyReply, v: Visitor, nonce: string, run: () => Promise<string | FastifyReply>): Promise<FastifyReply> {
    try {
      const out = await run();
      // A handler that re-renders its form sets the status first (reply.code(400)); keep it.
      return typeof out === 'string' ? sendHtml(reply, nonce, out, reply.statusCode) : out;
    } catch (err) {
      if (err instanceof ApiError) {
        for (const [k, val] of Object.entries(err.headers)) reply.header(k, val);
        return errorScreen(reply, v, nonce, err.status, err.title, err.detail ?? err.title);
      }
      throw err;
    }
  }
}
