/**
 * One sitemap file, parsed as its bytes arrive: XML (`<urlset>` or `<sitemapindex>`, in any namespace or none) by
 * saxes in its strict mode, or a text sitemap (one URL a line) when the body does not start with `<` (after a BOM
 * and white space). Nothing of a DTD is read: a DOCTYPE or an entity declaration refuses the file before saxes sees
 * it (no entity expansion, no external entity). Limits, each refusing the rest of the file with a SitemapRefusal
 * (what came before is kept): 50,000 entries, a `<loc>` of 2,048 characters (that entry only), a run of 1 MB of
 * text or comment without a tag (saxes would hold it whole), 1 MB of white space before the first character.
 */
import { SaxesParser } from 'saxes';
import { MAX_URL_LENGTH } from './url.js';

export const MAX_ENTRIES = 50_000;
const MAX_TEXT_RUN = 1_000_000;

/** Ends the reading of a file at `line`: why, in words (the reader prefixes the sitemap's URL and the line). */
export class SitemapRefusal extends Error {
  constructor(message: string, readonly line: number, readonly countsAsError = true) {
    super(message);
  }
}

export interface SitemapSink {
  /** An entry's `<loc>` (trimmed) or a text sitemap's line, at `line`. */
  entry(loc: string, line: number): void;
  /** An entry that is not usable (too long, empty). */
  invalid(why: string, line: number): void;
}

export type SitemapKind = 'urlset' | 'index' | 'text';

export class SitemapParser {
  kind: SitemapKind | undefined;
  entries = 0;
  private readonly decoder = new TextDecoder();
  private started = false;
  /** The prolog's tail, so that `<!DOCTYPE` split across chunks is still seen. */
  private prolog = '';
  private rootSeen = false;
  private xml: SaxesParser | undefined;
  private depth = 0;
  private inEntry = false;
  private capturing = false;
  private loc = '';
  private locTooLong = false;
  private lastBoundary = 0;
  /** Lines of white space before the first character (saxes counts from where it starts). */
  private lineOffset = 0;
  private leading = 0;
  // text sitemaps
  private pending = '';
  private textLine = 1;
  private skippingLongLine = false;

  constructor(private readonly sink: SitemapSink, private readonly o: { indexAllowed: boolean }) {}

  /** The line the parser is at (for messages). */
  get line(): number {
    return this.kind === 'text' ? this.textLine : (this.xml?.line ?? 1) + this.lineOffset;
  }

  write(chunk: Buffer): void {
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.feed(this.decoder.decode());
    if (this.kind === 'text') {
      this.lines('\n');
    } else if (this.xml) {
      this.guard(() => this.xml!.close());
      if (!this.kind) throw new SitemapRefusal('it has no root element: not a sitemap', this.line);
    } else {
      throw new SitemapRefusal('it is empty', 1);
    }
  }

  private feed(chunk: string): void {
    let text = chunk;
    if (!text) return;
    if (!this.started) {
      const lead = /^[\s\uFEFF]*/.exec(text)![0].length;
      this.lineOffset += countLines(text.slice(0, lead));
      this.leading += lead;
      if (this.leading > MAX_TEXT_RUN) throw new SitemapRefusal('more than 1 MB of white space before anything: not a sitemap', this.lineOffset);
      if (lead === text.length) return;
      text = text.slice(lead);
      this.started = true;
      this.textLine += this.lineOffset;
      if (text.startsWith('<')) this.startXml();
      else this.kind = 'text';
    }
    if (this.kind === 'text') return this.lines(text);
    if (!this.rootSeen) this.checkProlog(text);
    this.guard(() => this.xml!.write(text));
    if (this.xml!.position - this.lastBoundary > MAX_TEXT_RUN) {
      throw new SitemapRefusal('more than 1 MB of text without a tag: not a sitemap', this.line);
    }
  }

  private startXml(): void {
    const xml = new SaxesParser({ position: true });
    this.xml = xml;
    const boundary = () => (this.lastBoundary = xml.position);
    xml.on('doctype', () => {
      throw new SitemapRefusal(DOCTYPE_REFUSED, this.line);
    });
    xml.on('comment', boundary);
    xml.on('processinginstruction', boundary);
    xml.on('opentag', (tag) => {
      boundary();
      const name = localName(tag.name);
      const level = this.depth++;
      if (level === 0) {
        this.rootSeen = true;
        if (name === 'urlset') this.kind = 'urlset';
        else if (name === 'sitemapindex') {
          if (!this.o.indexAllowed) throw new SitemapRefusal('a sitemap index nested deeper than 3 indexes: refused', this.line);
          this.kind = 'index';
        } else {
          throw new SitemapRefusal(`not a sitemap: its root element is <${tag.name.slice(0, 40)}> (a sitemap is <urlset> or ` +
            '<sitemapindex>, or text with one URL a line)', this.line);
        }
      } else if (level === 1) {
        this.inEntry = name === (this.kind === 'urlset' ? 'url' : 'sitemap');
      } else if (level === 2 && this.inEntry && name === 'loc') {
        this.capturing = true;
        this.loc = '';
        this.locTooLong = false;
      }
    });
    xml.on('closetag', () => {
      boundary();
      const level = --this.depth;
      if (level === 2 && this.capturing) {
        this.capturing = false;
        this.found(this.locTooLong ? undefined : this.loc.trim(), this.line);
      } else if (level === 1) {
        this.inEntry = false;
      }
    });
    const text = (t: string) => {
      if (!this.capturing || this.locTooLong) return;
      this.loc += t;
      if (this.loc.length > MAX_URL_LENGTH + 1024) {
        this.locTooLong = true;
        this.loc = '';
      }
    };
    xml.on('text', text);
    xml.on('cdata', (t: string) => {
      boundary();
      text(t);
    });
  }

  /** A DOCTYPE or an entity declaration before the root element refuses the file before saxes parses it. */
  private checkProlog(text: string): void {
    const all = this.prolog + text;
    const element = all.search(/<[A-Za-z_:]/); // the root element starts: what follows is content
    const look = element >= 0 ? all.slice(0, element) : all;
    const at = look.search(/<!(DOCTYPE|ENTITY|ELEMENT|ATTLIST)/i);
    if (at >= 0) {
      const line = this.line + countLines(text.slice(0, Math.max(0, at - this.prolog.length)));
      throw new SitemapRefusal(/^<!DOCTYPE\s+html\b/i.test(look.slice(at)) ? 'it is an HTML page, not a sitemap' : DOCTYPE_REFUSED, line);
    }
    this.prolog = look.slice(-16);
  }

  private found(loc: string | undefined, line: number): void {
    if (loc === undefined || loc.length > MAX_URL_LENGTH) return this.sink.invalid(`a <loc> longer than ${MAX_URL_LENGTH} characters`, line);
    if (loc === '') return this.sink.invalid('an empty <loc>', line);
    this.count(line);
    this.sink.entry(loc, line);
  }

  private count(line: number): void {
    if (++this.entries > MAX_ENTRIES) {
      this.entries--;
      const what = this.kind === 'index' ? 'sitemaps' : 'URLs';
      throw new SitemapRefusal(`more than ${MAX_ENTRIES.toLocaleString('en')} ${what} (the protocol's limit): the first ` +
        `${MAX_ENTRIES.toLocaleString('en')} were kept, the rest of the file was not read`, line);
    }
  }

  private lines(text: string): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (this.skippingLongLine) {
        this.skippingLongLine = false;
      } else {
        const line = (this.pending + piece).trim();
        if (line.length > MAX_URL_LENGTH) this.sink.invalid(`a line longer than ${MAX_URL_LENGTH} characters`, this.textLine);
        else if (line) {
          this.count(this.textLine);
          this.sink.entry(line, this.textLine);
        }
      }
      this.pending = '';
      this.textLine++;
    }
    if (this.skippingLongLine) return;
    this.pending += text.slice(start);
    if (this.pending.length > MAX_URL_LENGTH + 1024) {
      this.sink.invalid(`a line longer than ${MAX_URL_LENGTH} characters`, this.textLine);
      this.pending = '';
      this.skippingLongLine = true;
    }
  }

  /** saxes' own errors (well-formedness) as refusals at their line. */
  private guard(run: () => void): void {
    try {
      run();
    } catch (err) {
      if (err instanceof SitemapRefusal) throw err;
      const message = (err as Error).message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
      throw new SitemapRefusal(`not well-formed XML: ${message}`, this.line);
    }
  }
}

const DOCTYPE_REFUSED = 'a DOCTYPE or entity declaration, which a sitemap never needs: refused (entity expansion and ' +
  'external entities are not read)';

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function countLines(s: string): number {
  return s.length - s.replaceAll('\n', '').length;
}
