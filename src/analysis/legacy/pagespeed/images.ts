/** PageSpeed image rules: OptimizeImages, ServeScaledImages, SpecifyImageDimensions, CombineImagesIntoCssSprites. */
import { bodySize, hostname, isOk, kb, kindOf, shortUrl, transferSize, type HarEntryLike } from '../../har.js';
import { componentsOf, delivered, ofType } from '../components.js';
import { plural, type LegacyInput } from '../rule.js';
import { bytesScore, pagespeedResult, percent, shareScore, type PagespeedRuleResult } from './ruleset.js';

/** A re-encoding counts when it saves at least this much (smaller gains are noise between encoders). */
export const MIN_IMAGE_SAVING = { bytes: 1024, ratio: 0.05 };
/** An image counts as oversized when its natural size exceeds the displayed size (× DPR) by more than this. */
const SCALE_TOLERANCE = 1.1;
const SPRITE_MAX_BYTES = 2048;

/**
 * bytes: what re-encoding each image in its own format saves (bodies.ts), over the bytes of the images
 * whose bodies were available. n/a when the page has images but none of their bodies.
 */
export function OptimizeImages(input: LegacyInput): PagespeedRuleResult {
  const images = input.har.log.entries.filter((e) => isOk(e) && kindOf(e) === 'image' && !e.request.url.startsWith('data:'));
  const urls = [...new Set(images.map((e) => e.request.url))];
  let inspected = 0;
  let wasted = 0;
  let unchecked = 0;
  const offenders: string[] = [];
  for (const url of urls) {
    const body = input.bodies?.byUrl.get(url);
    if (!body || body.kind !== 'image') {
      unchecked++;
      continue;
    }
    inspected += body.bytes;
    if (body.optimisedBytes === undefined) continue; // format not handled (SVG, AVIF, ICO) or undecodable
    const saving = body.bytes - body.optimisedBytes;
    if (saving >= MIN_IMAGE_SAVING.bytes && saving >= body.bytes * MIN_IMAGE_SAVING.ratio) {
      wasted += saving;
      offenders.push(`${shortUrl(url)} (could save ${kb(saving)}, ${percent(saving, body.bytes)})`);
    }
  }
  const note = unchecked ? ` ${plural(unchecked, 'image')} not checked: response body not captured.` : '';
  if (urls.length > 0 && inspected === 0) return pagespeedResult('OptimizeImages', null, [], note.trim());
  return pagespeedResult('OptimizeImages', bytesScore(wasted, inspected), offenders,
    (offenders.length ? `Optimizing ${plural(offenders.length, 'image')} could save ${kb(wasted)}.` : '') + note, wasted);
}

function imageEntry(entries: HarEntryLike[], url: string): HarEntryLike | undefined {
  return entries.find((e) => e.request.url === url && isOk(e));
}

/**
 * bytes: an image sent larger than shown wastes bytes × (1 − shown area × DPR² / natural area). The largest
 * display of each URL counts (one file serves all its uses). Over the bytes of all displayed images.
 */
export function ServeScaledImages(input: LegacyInput): PagespeedRuleResult {
  const dpr = input.facts.dom.devicePixelRatio || 1;
  const shown = new Map<string, { natural: number; area: number; w: number; h: number; nw: number; nh: number }>();
  for (const img of input.facts.dom.images) {
    if (img.naturalWidth <= 0 || img.displayWidth <= 0 || img.displayHeight <= 0) continue;
    const area = img.displayWidth * dpr * img.displayHeight * dpr;
    const prev = shown.get(img.src);
    if (!prev || area > prev.area) {
      shown.set(img.src, { natural: img.naturalWidth * img.naturalHeight, area, w: img.displayWidth, h: img.displayHeight,
        nw: img.naturalWidth, nh: img.naturalHeight });
    }
  }
  let inspected = 0;
  let wasted = 0;
  const offenders: string[] = [];
  for (const [src, s] of shown) {
    const entry = imageEntry(input.har.log.entries, src);
    if (!entry) continue; // inline data: image or served from memory: no bytes to attribute
    const bytes = transferSize(entry) || bodySize(entry);
    inspected += bytes;
    if (s.natural <= s.area * SCALE_TOLERANCE * SCALE_TOLERANCE) continue;
    const saving = Math.round(bytes * (1 - s.area / s.natural));
    wasted += saving;
    offenders.push(`${shortUrl(src)} is ${s.nw}×${s.nh}, shown at ${s.w}×${s.h} (could save ${kb(saving)})`);
  }
  return pagespeedResult('ServeScaledImages', bytesScore(wasted, inspected), offenders,
    offenders.length ? `Serving ${plural(offenders.length, 'image')} at the size shown could save ${kb(wasted)}.` : '', wasted);
}

/** share: displayed images without width and height (attributes or CSS) make the layout shift when they load. */
export function SpecifyImageDimensions(input: LegacyInput): PagespeedRuleResult {
  const displayed = input.facts.dom.images.filter((img) => img.displayWidth > 0 && img.displayHeight > 0);
  const offenders = displayed.filter((img) => !img.hasDimensions);
  return pagespeedResult('SpecifyImageDimensions', shareScore(offenders.length, displayed.length),
    offenders.map((img) => `${shortUrl(img.src)} (${img.displayWidth}×${img.displayHeight})`),
    offenders.length ? `${plural(offenders.length, 'image')} without explicit width and height.` : '');
}

/** penalty: 5 points for every small (< 2 KiB) CSS background image beyond the first from the same host. */
export function CombineImagesIntoCssSprites(input: LegacyInput): PagespeedRuleResult {
  const small = ofType(delivered(componentsOf(input.har, input.facts)), 'cssimage').filter((c) => c.size < SPRITE_MAX_BYTES);
  const perHost = new Map<string, string[]>();
  for (const c of small) perHost.set(hostname(c.url), [...(perHost.get(hostname(c.url)) ?? []), c.url]);
  const offenders: string[] = [];
  let extra = 0;
  for (const [host, urls] of perHost) {
    if (urls.length < 2) continue;
    extra += urls.length - 1;
    offenders.push(`${host}: ${plural(urls.length, 'small background image')}`);
  }
  return pagespeedResult('CombineImagesIntoCssSprites', 100 - 5 * extra, offenders,
    offenders.length ? 'Small background images from the same host could be combined into sprites.' : '');
}
