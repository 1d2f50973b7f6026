/**
 * The e-mail of a site scan's alert that triggered or resolved (docs/scans.md "Alerts on a site"): the condition, its
 * message naming the pages, each page with a link to its report, the comparison's notes, and links to the scan, the
 * previous scan and their comparison. Sent like a page's alert e-mail (email.ts), through the outbox.
 */
import { esc, type MailMessage } from './email.js';

export interface ScanAlertMailFacts {
  to: string;
  state: 'triggered' | 'resolved';
  site: string;
  /** The device the scan ran as, in words ("desktop", "mid-tier phone"): a site's alerts are per device. */
  device: string;
  /** The condition as people read it: "LCP, 75th percentile > 2.50 s" (alert-conditions.ts conditionText). */
  condition: string;
  message: string;
  pages: readonly { url: string; why: string; link: string | null }[];
  morePages: number;
  notes: readonly string[];
  scanLink: string;
  previousScanLink: string | null;
  compareLink: string | null;
}

export function scanAlertMail(f: ScanAlertMailFacts): MailMessage {
  const verb = f.state === 'triggered' ? 'Alert' : 'Resolved';
  const subject = `[Webgauge] ${verb}: ${f.condition} on ${f.site} (${f.device})`;
  const more = f.morePages > 0 ? `and ${f.morePages} more (the scan lists every page)` : '';
  const links: [string, string][] = [['The scan', f.scanLink]];
  if (f.previousScanLink) links.push(['The previous scan', f.previousScanLink]);
  if (f.compareLink) links.push(['The two compared', f.compareLink]);
  const lines = [
    `${verb}: ${f.condition} on ${f.site} (${f.device}).`,
    '',
    f.message,
    ...(f.pages.length ? ['', 'Pages:', ...f.pages.map((p) => `- ${p.url}: ${p.why}${p.link ? `\n  ${p.link}` : ''}`), ...(more ? [`- ${more}`] : [])] : []),
    ...(f.notes.length ? ['', ...f.notes] : []),
    '',
    ...links.map(([label, href]) => `${label}: ${href}`),
  ];
  const pageItems = f.pages.map((p) => `<li>${p.link ? `<a href="${esc(p.link)}">${esc(p.url)}</a>` : esc(p.url)}: ${esc(p.why)}</li>`).join('');
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2 style="color:${f.state === 'triggered' ? '#b42318' : '#067647'}">${esc(verb)}: ${esc(f.condition)}</h2>
<p>Site: <a href="${esc(f.site)}">${esc(f.site)}</a> (${esc(f.device)})</p>
<p>${esc(f.message)}</p>${pageItems ? `\n<ul>${pageItems}${more ? `<li>${esc(more)}</li>` : ''}</ul>` : ''}${f.notes.map((n) => `\n<p>${esc(n)}</p>`).join('')}
<p>${links.map(([label, href]) => `<a href="${esc(href)}">${esc(label)}</a>`).join(' · ')}</p>
</body></html>`;
  return { to: f.to, subject, text: lines.join('\n') + '\n', html };
}
