/**
 * Account: who is signed in (and whose team), the plan and what it allows, credits and their refill, usage, the
 * API key and the webhooks (screens/webhooks.ts). Keys are stored hashed, so the current one cannot be shown;
 * "Regenerate API key" asks first (POST /account/key without confirm=yes), then makes a new one and shows it once.
 */
import { DAY_MS, fromTenths, refilledCredits, regenerateKeyOf, tenths } from '../../core/accounts/accounts.js';
import { clock } from '../../core/clock.js';
import { accountPrincipal } from '../../core/pages/monitoring.js';
import type { Plan } from '../../core/accounts/plans.js';
import { accountUsage, type AccountUsage } from '../../core/accounts/usage.js';
import type { Visitor } from '../session.js';
import { actionButton, esc, shell, type WebKit } from '../kit.js';
import { plural, utcMinute } from './figures.js';
import { planFrequencies } from '../../core/vocabulary/frequencies.js';
import { registerWebhookScreens, webhooksSection, type WebhookForm } from './webhooks.js';

/** An amount of credits as Account prints it: 66.8, 100, 1,000. */
const amount = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 1 });
const credits = (n: number) => `${amount(n)} credit${n === 1 ? '' : 's'}`;
const utc = (ms: number) => `${utcMinute(ms)} UTC`;

/** "in 5 h 12 min" from now. */
function inTime(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const h = Math.floor(minutes / 60);
  return `in ${h ? `${h} h ` : ''}${minutes % 60 || !h ? `${minutes % 60} min` : ''}`.trim();
}

function per(seconds: number): string {
  if (seconds === 60) return 'minute';
  if (seconds === 3600) return 'hour';
  return plural(seconds, 'second');
}

const facts = (rows: [string, string][]) =>
  `<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;

function section(id: string, title: string, content: string): string {
  return `<section class="card account-part" aria-labelledby="acc-${id}"><h2 id="acc-${id}">${title}</h2>${content}</section>`;
}

function planFacts(plan: Plan): string {
  const frequencies = planFrequencies(plan);
  return facts([
    ['Credits', plan.unlimitedCredits ? 'Unlimited' : `${credits(plan.dailyCredits)} a day`],
    ['Tests at once', `${plan.concurrentTests.toLocaleString('en')} queued or running`],
    ['Runs per test', `up to ${plan.maxRuns}`],
    ['Analysis options', plan.proAnalysisOptions
      ? 'All, with device simulation, user agent, viewport and DNS overrides'
      : 'Standard (device simulation, user agent, viewport and DNS overrides are pro options)'],
    ['Monitoring', plan.monitoringSlots > 0 ? `${plural(plan.monitoringSlots, 'page')}, ${frequencies}` : 'Not included'],
    ['PDF reports', plan.pdf ? (plan.fullPdf ? 'Summary and full' : 'Summary') : 'Not included'],
    ['Tags', `up to ${plan.maxTags.toLocaleString('en')}`],
    ['API requests', `${plan.rateLimit.toLocaleString('en')} per ${per(plan.rateWindowSeconds)}`],
  ]);
}

/**
 * Where the credits went since the last refill, as a sum that adds up to the balance: the allowance, less the tests
 * charged since (failed ones are refunded), less what scans hold while they find their pages; what is left over is
 * PDFs and other charges (or, the other way, credits kept from before the refill or added by the operator).
 */
function sinceRefill(allowance: number, leftTenths: number, refilledAt: number, u: AccountUsage): string {
  const other = tenths(allowance) - leftTenths - u.chargedSinceRefillTenths - u.reservedTenths;
  const n = (t: number) => amount(fromTenths(t));
  const parts = [`${credits(fromTenths(u.chargedSinceRefillTenths))} for ${plural(u.testsSinceRefill, 'test')}`,
    ...(u.reservedTenths > 0 ? [`${n(u.reservedTenths)} held by scans still finding their pages`] : []),
    ...(other > 0 ? [`${n(other)} for PDFs and other charges`] : [])];
  const sum = `${n(tenths(allowance))}${other < 0 ? ` + ${n(-other)}` : ''} − ${n(u.chargedSinceRefillTenths)}` +
    `${u.reservedTenths > 0 ? ` − ${n(u.reservedTenths)}` : ''}${other > 0 ? ` − ${n(other)}` : ''} = ${n(leftTenths)}`;
  return `<p class="credit-sum">Since the last refill (<time datetime="${new Date(refilledAt).toISOString()}">${utc(refilledAt)}</time>): ` +
    `${parts.join(', ')}${other < 0 ? `; ${n(-other)} more than the daily ${n(tenths(allowance))} was there (kept from before, or added)` : ''}. ` +
    `<span class="muted">${sum}.</span></p>`;
}

async function accountScreen(kit: WebKit, v: Visitor, nonce: string, query: Record<string, unknown> = {}, webhookForm?: WebhookForm): Promise<string> {
  const { ctx } = kit;
  const p = v.principal;
  const db = ctx.store.db;
  const balance = await refilledCredits(db, p.accountId, p.plan);
  const refilledAt = balance.nextRefill - DAY_MS;
  const usage = await accountUsage(db, p.accountId, refilledAt);
  const member = p.keyAccountId !== p.accountId;
  const owner = member ? await accountPrincipal(db, ctx.config.plans, p.accountId) : undefined;

  const who = facts([
    ['E-mail', esc(p.email)],
    ['Role', p.role === 'owner' ? 'Owner: runs tests and changes pages, tags and reports' : 'Viewer: sees the team’s reports, changes nothing'],
    ...(member ? [['Team', `Member of the team of ${esc(owner?.email ?? 'a deleted account')}: its pages, reports and credits are shared`] as [string, string]] : []),
  ]);

  const now = clock.now();
  const creditPart = p.plan.unlimitedCredits
    ? `<p class="account-figure">Unlimited credits</p><p class="muted">Tests, PDFs and monitoring are never charged on this plan.</p>`
    : `<p class="account-figure">${credits(fromTenths(balance.tenths))} left</p>
${sinceRefill(p.plan.dailyCredits, balance.tenths, refilledAt, usage)}
<p>Next refill: <time datetime="${new Date(balance.nextRefill).toISOString()}">${utc(balance.nextRefill)}</time> (${inTime(balance.nextRefill - now)}),
back up to ${credits(p.plan.dailyCredits)} if the balance is below that.</p>`;

  const slots = (used: number, of: number) => `${used.toLocaleString('en')} of ${of.toLocaleString('en')}`;
  const usagePart = facts([
    ['Tests, last 24 hours', `${usage.testsDay.toLocaleString('en')}${p.plan.unlimitedCredits ? '' : ` (${credits(usage.creditsDay)} charged)`}`],
    ['Reports, last 30 days', usage.reportsMonth.toLocaleString('en')],
    ['Pages', usage.pages.toLocaleString('en')],
    ['Monitored pages', slots(usage.monitoredPages, p.plan.monitoringSlots)],
    ['Tags', slots(usage.tags, p.plan.maxTags)],
  ]) + `<p class="muted">Tests are kept for 24 hours; reports for as long as each test asked (1 to 24 months). Failed tests are refunded.</p>`;

  const keyPart = `<p>Your API key signs API requests and CI jobs in as you. Keys are stored hashed, so the current key cannot be shown again.</p>
<p>Lost it, or it may have leaked? Make a new one: the current key stops working at once.</p>
${actionButton(v, '/account/key', 'Regenerate API key', { style: 'secondary' })}`;

  const body = `<h1>Account</h1>
<div class="account-grid">
${section('who', 'You', who)}
${section('credits', 'Credits', creditPart)}
${section('usage', 'Usage', usagePart)}
${section('plan', `Plan: ${esc(p.plan.name)}`, planFacts(p.plan))}
${section('key', 'API key', keyPart)}
</div>
${await webhooksSection(kit, v, query, webhookForm)}`;
  return shell(v, nonce, { title: 'Account', active: 'account', body });
}

function confirmScreen(v: Visitor, nonce: string): string {
  const body = `<h1>Regenerate your API key?</h1>
<div class="card account-part"><p>A new key replaces your current one. The current key stops working <strong>at once</strong>:
the API, scripts and CI jobs that use it are refused until they are given the new key.</p>
<p>This web app session stays signed in; the account’s other sessions (other browsers, maybe opened with the old key) are signed out.</p>
<div class="actions">${actionButton(v, '/account/key', 'Yes, regenerate', { style: 'danger', hidden: { confirm: 'yes' } })}
<a class="btn secondary" href="/account">Cancel</a></div></div>`;
  return shell(v, nonce, { title: 'Regenerate API key', active: 'account', body });
}

function newKeyScreen(v: Visitor, nonce: string, key: string): string {
  const body = `<h1>Your new API key</h1>
<div class="card account-part"><p role="status"><strong>Copy it now:</strong> it is shown only this once (we keep only its hash).</p>
<p><code class="key-once">${esc(key)}</code></p>
<p>Your previous key no longer works. Put this one wherever the old one was used (scripts, CI secrets).</p>
<p><a href="/account">Back to Account</a></p></div>`;
  return shell(v, nonce, { title: 'New API key', active: 'account', body });
}

export function registerAccountScreen(kit: WebKit): void {
  kit.screen('/account', async (req, _reply, v, nonce) => accountScreen(kit, v, nonce, req.query as Record<string, unknown>));
  registerWebhookScreens(kit, (v, nonce, form) => accountScreen(kit, v, nonce, {}, form));

  kit.action('/account/key', async (_req, _reply, v, form, nonce) => {
    if (form.get('confirm') !== 'yes') return confirmScreen(v, nonce);
    const key = await regenerateKeyOf(kit.ctx.store.db, v.principal.keyAccountId, v.sessionToken);
    return newKeyScreen(v, nonce, key);
  });
}
