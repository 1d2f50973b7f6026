/**
 * `adblock=1`: every request of the page (the tested document itself excepted) is judged by a real filter
 * engine, @ghostery/adblocker (MPL-2.0), loaded with Webgauge's own list (adblock-list.ts, MIT) plus the
 * operator's list files (WEBGAUGE_ADBLOCK_LIST), before it leaves the browser. Network filters act: blocking,
 * exceptions (`@@`), `$third-party`, `$script`... and `$redirect` resources, served in place of the request.
 * Element-hiding (`##`) rules are not applied: they hide what was loaded and change nothing of the load.
 */
import { readFileSync } from 'node:fs';
import { FiltersEngine, Request } from '@ghostery/adblocker';
import { WEBGAUGE_FILTER_LIST } from './adblock-list.js';

export type AdblockVerdict =
  | { action: 'allow' }
  | { action: 'block'; filter: string }
  | { action: 'redirect'; filter: string; contentType: string; body: Buffer };

export type AdblockJudge = (request: { url: string; resourceType: string; frameUrl: string; mainFrame: boolean }) =>
  AdblockVerdict;

const engines = new Map<string, FiltersEngine>();

/**
 * The engine for these operator list files (parsed once per process and list set: a few ms for our list,
 * ~0.5 s for EasyList). An unreadable file throws; the service checks the files at start (config.ts).
 */
export function adblockEngine(operatorLists: readonly string[] = []): FiltersEngine {
  const key = operatorLists.join('\n');
  let engine = engines.get(key);
  if (!engine) {
    const text = [WEBGAUGE_FILTER_LIST, ...operatorLists.map((path) => readFileSync(path, 'utf8'))].join('\n');
    engine = FiltersEngine.parse(text, { loadCosmeticFilters: false, loadNetworkFilters: true });
    engines.set(key, engine);
  }
  return engine;
}

/** CDP resource types (`Document`, `Script`, ...) to the engine's request types. */
function requestType(resourceType: string, mainFrame: boolean): Parameters<typeof Request.fromRawDetails>[0]['type'] {
  const t = resourceType.toLowerCase();
  if (t === 'document') return mainFrame ? 'main_frame' : 'sub_frame';
  const known = ['stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'prefetch',
    'eventsource', 'websocket', 'manifest', 'signedexchange', 'ping', 'cspviolationreport', 'preflight', 'other'];
  return (known.includes(t) ? t : 'other') as Parameters<typeof Request.fromRawDetails>[0]['type'];
}

export function adblockJudge(engine: FiltersEngine): AdblockJudge {
  return ({ url, resourceType, frameUrl, mainFrame }) => {
    const request = Request.fromRawDetails({ url, type: requestType(resourceType, mainFrame), sourceUrl: frameUrl });
    if (!request.isSupported) return { action: 'allow' };
    const result = engine.match(request);
    const filter = result.filter?.toString() ?? '';
    const data = result.redirect && /^data:([^,;]*)(;base64)?,(.*)$/s.exec(result.redirect.dataUrl);
    if (data) {
      const body = data[2] ? Buffer.from(data[3], 'base64') : Buffer.from(decodeURIComponent(data[3]));
      return { action: 'redirect', filter, contentType: data[1] || 'text/plain', body };
    }
    return result.match ? { action: 'block', filter } : { action: 'allow' };
  };
}
