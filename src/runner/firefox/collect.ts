/**
 * What a Firefox load produces once it is over: the page's timings (page.ts), its screenshot, the HAR of the BiDi
 * network events with the guard's addresses and lookups, the bodies for the legacy rules (BiDi network.getData, from
 * the data collectors puppeteer adds), and the metrics: every load metric the spec defines, and of the Lighthouse ones
 * only the largest contentful paint, which Firefox reports itself. CLS and TBT (Firefox exposes no layout-shift or
 * longtask entries), TTI, SpeedIndex and the performance score are absent. The filmstrip and the video come from the
 * recording of the load's screen (screen-recording.ts), made as Chromium's are from its screencast frames.
 */
import { RunError, type HostMeasurement, type RunResult } from '../types.js';
import { readPageExtent, screenFromFilm, takeScreenshot } from '../capture/screenshot.js';
import { applyGuardConnections, harFigures, type Har, type HarEntry } from '../capture/har.js';
import { collectBodiesWith } from '../capture/bodies.js';
import { IMAGE_LIMITS } from '../capture/images.js';
import { rumSpeedIndex } from '../capture/rum-speed-index.js';
import { lastActivityBeforeQuiet, NETWORK_QUIET_MS } from '../network-activity.js';
import { runMetrics, runWarnings } from '../load/figures.js';
import { otherCpuCores } from '../host-load.js';
import { collectPageFactsInPage } from '../../analysis/collect-facts.js';
import { emptyDomFacts, type PageFacts } from '../../analysis/facts.js';
import { filmOfLoad } from '../capture/filmstrip.js';
import { encodeVideo } from '../capture/video.js';
import type { FilmstripFrame } from '../types.js';
import { readFirefoxPage } from './page.js';
import type { FirefoxLoad } from './context.js';

export async function collectFirefoxLoad(load: FirefoxLoad): Promise<RunResult> {
  const { spec, page, network, timer } = load;
  const { options } = spec;
  const readings = await readFirefoxPage(page);
  if (!readings) throw new RunError('The page has no navigation timing (it did not load as a document)');
  const { timings } = readings;
  const rumSi = await rumSpeedIndex(page);
  let dom = emptyDomFacts();
  try {
    dom = await page.evaluate(collectPageFactsInPage);
  } catch (err) {
    load.warnings.push(`The page's DOM could not be read for the structure analysis: ${(err as Error).message}`);
  }
  const facts: PageFacts = { url: options.url, finalUrl: timings.url, dom };
  const screenshot = await screenshotOf(load);
  timer.end('page');

  // The load's end on the epoch clock of BiDi's timings: fully loaded by the quiet rule, or the end of onload.
  const stopOnload = options.stop_onload === 1;
  const onloadEnd = timings.timeOrigin + timings.loadEventEnd;
  const endAt = stopOnload ? onloadEnd : lastActivityBeforeQuiet(network.settledActivity(), onloadEnd, NETWORK_QUIET_MS);
  const endMs = Math.round(endAt - timings.timeOrigin);
  const har = network.har({ until: endAt, pageStart: timings.timeOrigin, title: timings.url,
    onContentLoad: Math.round(timings.domContentLoadedEventStart), onLoad: Math.round(timings.loadEventStart),
    decodedSizes: readings.decodedSizes });
  await load.launched.connections.settled();
  applyGuardConnections(har, load.launched.connections.ledger);
  const bodies = options.report.includes('legacy') ? await readBodies(load, har) : undefined;
  timer.end('har');
  const film = await filmOf(load, timings.timeOrigin, Math.max(endMs, timings.loadEventEnd));
  const video = options.video === 1 ? await videoOf(load, film) : undefined;
  timer.end('video');

  const metrics = runMetrics({ har: harFigures(har, network.mainRequestId), timings, authChallengeMs: 0, loadEndMs: endMs,
    stopOnload, rumSpeedIndex: rumSi, lighthouse: { largest_contentful_paint: readings.largestContentfulPaint } });
  const warnings = runWarnings({ load: load.warnings, lighthouse: [], guard: load.launched.connections.ledger, loadWait: [] });
  return {
    finalUrl: timings.url,
    userAgent: load.emulation.userAgent,
    deviceClass: load.spec.conditions.device.deviceClass,
    metrics,
    har,
    screenshot,
    filmstrip: film?.frames ?? [],
    video,
    facts,
    bodies,
    phases: timer.phases,
    warnings,
    host: hostMeasurement(load),
  };
}

/**
 * The page as the load left it, whole: the film's frame at the load's end when the page fits its viewport
 * (screenFromFilm), else captured.
 */
async function screenshotOf(load: FirefoxLoad): Promise<Buffer> {
  const frames = await load.recording?.stop().catch(() => undefined);
  const shown = frames && await screenFromFilm(frames, await readPageExtent(load.page), load.emulation);
  return shown ?? takeScreenshot(load.page);
}

/** The filmstrip of the recorded screen, from navigation start to the last visual change or the load's end. */
async function filmOf(load: FirefoxLoad, timeOrigin: number, loadEndMs: number):
Promise<{ frames: FilmstripFrame[]; endMs: number } | undefined> {
  if (!load.recording) return undefined;
  try {
    const raw = await load.recording.stop(); // stopped at the load's end (load.ts): the same frames
    return filmOfLoad(raw, timeOrigin, (load.observedUntil ?? timeOrigin) - timeOrigin, loadEndMs);
  } catch (err) {
    load.warnings.push(`No filmstrip or video: the screen recording failed: ${(err as Error).message}`);
    return undefined;
  }
}

/** video.mp4 of the film (`video=1`), encoded as Chromium's is (capture/video.ts). */
async function videoOf(load: FirefoxLoad, film: { frames: FilmstripFrame[]; endMs: number } | undefined): Promise<Buffer | undefined> {
  if (!film || film.frames.length === 0) return undefined;
  const { spec } = load;
  try {
    return await encodeVideo(film.frames, { dir: spec.workDir, endMs: film.endMs, ffmpegPath: spec.ffmpegPath,
      timeoutMs: spec.timeoutMs, signal: spec.signal });
  } catch (err) {
    load.warnings.push(`The video could not be made: ${(err as Error).message}`);
    return undefined;
  }
}

/** Decoded bodies for the legacy rules, from the browser's own collected data (no second request). */
async function readBodies(load: FirefoxLoad, har: Har): Promise<Map<string, Buffer>> {
  const read = async (e: HarEntry): Promise<Buffer | undefined> => {
    try {
      const r = (await load.connection.send('network.getData', { dataType: 'response', request: e._requestId })).result as
        { bytes: { type: 'string' | 'base64'; value: string } };
      return Buffer.from(r.bytes.value, r.bytes.type === 'base64' ? 'base64' : 'utf8');
    } catch {
      return undefined; // not collected (too large), or no body: the rules note it as missing
    }
  };
  const images = har.log.entries.filter((e) => e.response.status === 200 &&
    String(e.response.content.mimeType ?? '').toLowerCase().startsWith('image/')).slice(0, IMAGE_LIMITS.count);
  const imageBodies = Promise.all(images.map(async (e) => ({ e, body: await read(e) }))).then((got) => got
    .filter((i) => i.body && i.body.length > 0)
    .map(({ e, body }) => ({ url: e.request.url, mimeType: String(e.response.content.mimeType).toLowerCase().split(';')[0]!.trim(), body: body! })));
  return collectBodiesWith(read, har.log.entries, imageBodies); // the images' and the texts' reads at once
}

function hostMeasurement(load: FirefoxLoad): HostMeasurement | undefined {
  const { cpuAtStart, cpuAtEnd } = load;
  return load.spec.measureHost
    ? { benchmarkIndex: load.spec.benchmarkIndex, otherCpuCores: cpuAtStart && cpuAtEnd ? otherCpuCores(cpuAtStart, cpuAtEnd) : undefined }
    : undefined;
}
