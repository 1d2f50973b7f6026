/**
 * Enable keep-alive (ours). An HTTP/1.x response with `Connection: close` from a host the page requests more
 * than once forces a new TCP (and TLS) handshake for the next request. HTTP/2 and HTTP/3 always reuse.
 * score = 1 − offending responses / HTTP/1.x responses from such hosts; not applicable when there are none.
 */
import { hostname, responseHeader, shortUrl, type HarEntryLike } from '../har.js';
import { NOT_APPLICABLE, type StructureAudit } from './audit.js';

const isHttp1 = (e: HarEntryLike): boolean => {
  const v = (e.response.httpVersion || e.request.httpVersion || '').toLowerCase();
  return v === '' || v.startsWith('http/1');
};

/** HTTP/1.x responses from hosts with more than one request, and those among them that closed the connection. */
export function keepAliveOffenders(entries: HarEntryLike[]): { eligible: HarEntryLike[]; offenders: HarEntryLike[] } {
  const perHost = new Map<string, number>();
  for (const e of entries) perHost.set(hostname(e.request.url), (perHost.get(hostname(e.request.url)) ?? 0) + 1);
  const eligible = entries.filter((e) => isHttp1(e) && (perHost.get(hostname(e.request.url)) ?? 0) > 1 && e.response.status > 0);
  const offenders = eligible.filter((e) => /\bclose\b/i.test(responseHeader(e, 'connection') ?? ''));
  return { eligible, offenders };
}

export const enableKeepAlive: StructureAudit = {
  id: 'enable-keep-alive',
  title: 'Enable keep-alive',
  impact: 'low',
  source: 'webgauge',
  run(input) {
    if (!input.har) return NOT_APPLICABLE;
    const { eligible, offenders } = keepAliveOffenders(input.har.log.entries);
    if (eligible.length === 0) return NOT_APPLICABLE;
    return { score: 1 - offenders.length / eligible.length, offenders: offenders.map((e) => shortUrl(e.request.url)) };
  },
};
