/**
 * Alert e-mail through the operator's SMTP server (WEBGAUGE_SMTP_URL, WEBGAUGE_SMTP_FROM), with nodemailer.
 * Without SMTP settings no e-mail is queued at all. Messages are composed when the event happens and kept in
 * the outbox (notify/outbox.ts) until sent.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { figureSpec, formatAgainst, formatFigure } from '../analysis/figures.js';
import { operatorSymbol } from '../core/vocabulary/alert-operators.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(m: MailMessage): Promise<void>;
  close(): void;
}

export function smtpMailer(url: string, from: string): Mailer {
  const transport: Transporter = nodemailer.createTransport(url);
  return {
    async send(m) {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
    },
    close() {
      transport.close();
    },
  };
}

export interface AlertMailFacts {
  to: string;
  state: string;
  pageUrl: string;
  metric: string;
  operator: string;
  value: number;
  threshold: number;
  /** The condition's own value: the threshold, or the relative change of a regression. */
  conditionValue: number;
  reportLink: string;
  reportPageLink: string;
  pageLink: string;
  /** What the check left out and why (alert_events.note). */
  note?: string | null;
}

/** Text as HTML of an e-mail. */
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function alertMail(f: AlertMailFacts): MailMessage {
  /** A value of the metric as every output prints it, and the metric by its label (the one table of figures). */
  const spec = figureSpec(f.metric);
  const num = (v: number) => formatFigure(spec?.unit ?? 'count', v);
  const metric = spec?.label ?? f.metric;
  const what = f.operator === 'regression'
    ? `${metric} regressed by at least ${Math.round(f.conditionValue * 100)}% against the page's history`
    : `${metric} ${operatorSymbol(f.operator) ?? f.operator} ${num(f.conditionValue)}`;
  const verb = f.state === 'triggered' ? 'Alert' : 'Resolved';
  const subject = `[Webgauge] ${verb}: ${metric} on ${f.pageUrl}`;
  // The value and its threshold never print alike when they differ (2.50 s (2,504 ms) against 2.50 s (2,500 ms)).
  const [value, threshold] = formatAgainst(spec?.unit ?? 'count', f.value, f.threshold);
  const comparison = f.operator === 'regression'
    ? `recent median ${value} against ${threshold} (the earlier median moved by the change that matters)`
    : `measured ${value} against the threshold ${threshold}`;
  const lines = [
    `${verb}: ${what}.`,
    '',
    `Page: ${f.pageUrl}`,
    `${metric}: ${comparison}.`,
    ...(f.note ? ['', f.note] : []),
    '',
    `Report: ${f.reportPageLink}`,
    `Report (API): ${f.reportLink}`,
    `Page (API): ${f.pageLink}`,
  ];
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2>${esc(verb)}: ${esc(what)}</h2>
<p>Page: <a href="${esc(f.pageUrl)}">${esc(f.pageUrl)}</a></p>
<p><b>${esc(metric)}</b>: ${esc(comparison)}.</p>${f.note ? `\n<p>${esc(f.note)}</p>` : ''}
<p><a href="${esc(f.reportPageLink)}">View the report</a> · <a href="${esc(f.reportLink)}">report (API)</a> · <a href="${esc(f.pageLink)}">page (API)</a></p>
</body></html>`;
  return { to: f.to, subject, text: lines.join('\n') + '\n', html };
}
