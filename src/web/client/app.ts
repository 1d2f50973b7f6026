/**
 * The web app's only script (the screens work without it): asks before destructive forms are sent, follows
 * a running test live through server-sent events (its phase, the time elapsed), opening its report when it completes
 * (and showing a failed test again, with its error and Retest), follows a running scan the same way (its changing parts
 * fetched again, the site report opened when it is done), reads a chosen recording file into the field it fills
 * (data-fills: the textarea's id), copies a field's text (data-copy: its id; the field stays selectable without
 * script), keeps a screen's live parts fresh (data-poll: the Field screen's page views of the last 5 minutes), and
 * brings a refused form's error into view.
 */

document.addEventListener('submit', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) e.preventDefault();
});

/**
 * A refused form shown again opens on its error (kit.ts errorBox): the summary has the focus (autofocus) and is brought
 * to the middle of the view, clear of the sticky bars, wherever the form sits on a long page.
 */
const formError = document.querySelector<HTMLElement>('[data-form-error]');
if (formError) {
  formError.focus({ preventScroll: true });
  formError.scrollIntoView({ block: 'center' });
}

/**
 * A box that scrolls sideways (a wide table's .tablewrap, a filmstrip...; the stylesheet shades the edge it goes on
 * past, and a line above it says so) is a named region in the tab order while it scrolls, so that a keyboard can
 * scroll it too: named by its own label, else its table's caption or label, else its section's heading. Checked again
 * when the window's width changes.
 */
const SCROLLERS = '.tablewrap, .cmp-film, .cmpfilm, .film, .steps-wrap';

function textOf(e: Element | null | undefined): string {
  return (e?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function scrollerName(box: HTMLElement): string {
  const table = box.querySelector('table');
  const labelled = table?.getAttribute('aria-labelledby');
  const section = box.closest('section');
  const sectionLabel = section?.getAttribute('aria-labelledby');
  const name = textOf(table?.caption) || (labelled ? textOf(document.getElementById(labelled)) : '') || table?.getAttribute('aria-label') ||
    (sectionLabel ? textOf(document.getElementById(sectionLabel)) : '') || textOf(section?.querySelector('h2, h3')) || 'Table';
  return `${name} (scrolls sideways)`;
}

function markScrollers(): void {
  for (const box of document.querySelectorAll<HTMLElement>(SCROLLERS)) {
    const overflow = getComputedStyle(box).overflowX;
    const scrolls = (overflow === 'auto' || overflow === 'scroll') && box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle('scrolls', scrolls);
    let hint = box.previousElementSibling;
    if (scrolls && !hint?.classList.contains('scroll-hint')) {
      // Said to the eye; a screen reader hears it in the region's name.
      hint = document.createElement('p');
      hint.className = 'scroll-hint';
      hint.setAttribute('aria-hidden', 'true');
      hint.textContent = 'Scroll sideways for more →';
      box.before(hint);
    }
    if (hint?.classList.contains('scroll-hint')) (hint as HTMLElement).hidden = !scrolls;
    if (scrolls && box.dataset.scrollMarked === undefined) {
      // What this adds, to take it away again when the box no longer scrolls.
      const added = [
        ['tabindex', '0'], ['role', 'region'],
        ['aria-label', box.hasAttribute('aria-labelledby') ? '' : scrollerName(box)],
      ].filter(([k, v]) => v !== '' && !box.hasAttribute(k!));
      for (const [k, v] of added) box.setAttribute(k!, v!);
      box.dataset.scrollMarked = added.map(([k]) => k).join(' ');
    } else if (!scrolls && box.dataset.scrollMarked !== undefined) {
      for (const k of box.dataset.scrollMarked.split(' ').filter(Boolean)) box.removeAttribute(k);
      delete box.dataset.scrollMarked;
    }
  }
}

/** The sticky tabs' height (two rows on a phone), which a part followed from its tab scrolls clear of (--sticky-top). */
function measureStickyTop(): void {
  const tabs = document.querySelector<HTMLElement>('.tabs');
  if (tabs) document.documentElement.style.setProperty('--sticky-top', `${Math.ceil(tabs.getBoundingClientRect().height)}px`);
}

markScrollers();
measureStickyTop();
let resizing = false;
window.addEventListener('resize', () => {
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(() => {
    resizing = false;
    markScrollers();
    measureStickyTop();
  });
});

interface TestEvent {
  state: 'queued' | 'started' | 'completed' | 'error';
  /** Where the test is among the screen's steps (data-step), while queued or started. */
  step?: string;
  /** Tests ahead of this one at its location (queued only). */
  position?: number;
  error?: string;
  report?: string;
  label: string;
  /** Since the test was asked for, when the event was made (ms). */
  elapsed_ms: number;
}

/** A wait in words, as the server prints it (core/tests/phases.ts durationText): "8 s", "1 min 05 s", "1 h 02 min". */
function durationText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${two(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${two(Math.floor(s / 60) % 60)} min`;
}

/**
 * A running test's screen: the status line and the steps follow the test's events, the elapsed time ticks each second
 * (from the server's count, by this browser's clock), the report opens when the test completes, and a test that
 * fails is shown again as failed (its error, Retest; a journey's steps and last screen).
 */
function followTest(box: HTMLElement): void {
  const url = box.dataset.events;
  if (!url) return;
  const state = box.querySelector<HTMLElement>('[data-state]');
  const elapsed = box.querySelector<HTMLElement>('[data-elapsed]');
  let base = Number(elapsed?.dataset.elapsed ?? 0);
  let since = performance.now();
  const tick = (): void => {
    if (elapsed) elapsed.textContent = durationText(base + performance.now() - since);
  };
  const ticker = window.setInterval(tick, 1000);
  const source = new EventSource(url);
  source.addEventListener('state', (e) => {
    const ev = JSON.parse((e as MessageEvent<string>).data) as TestEvent;
    if (state && state.textContent !== ev.label) state.textContent = ev.label;
    base = ev.elapsed_ms;
    since = performance.now();
    tick();
    let passed = true;
    for (const li of box.querySelectorAll<HTMLElement>('[data-steps] [data-step]')) {
      const current = li.dataset.step === ev.step;
      if (current) passed = false;
      li.classList.toggle('done', passed && ev.step !== undefined);
      li.classList.toggle('current', current);
      if (current) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
    const failedNow = ev.state === 'error' && box.dataset.current !== 'error';
    box.dataset.current = ev.state;
    if (ev.state === 'completed' || ev.state === 'error') {
      source.close();
      window.clearInterval(ticker);
    }
    if (ev.state === 'completed' && ev.report) window.location.assign(ev.report);
    if (failedNow) window.location.reload();
  });
}

for (const box of document.querySelectorAll<HTMLElement>('[data-events]')) followTest(box);

interface ScanEvent {
  state: string;
  label: string;
  /** Changes whenever the screen would (state, URLs found, pages in each state). */
  key: string;
  /** The scan no longer changes: its screen now has the site report (or its end). */
  done: boolean;
}

/**
 * A running scan's screen: when the scan's events say it moved, the screen is fetched again and its live parts
 * (data-live, by id: the status line, the progress, the pages) take the new content at once, so that they always say
 * the same (the status line takes the event's words only when the screen could not be fetched); when it is done, the
 * screen reloads.
 */
function followScan(box: HTMLElement): void {
  const url = box.dataset.scanEvents;
  if (!url) return;
  const status = box.querySelector<HTMLElement>('[data-state]');
  let fetching = false;
  let again = false;
  let label = '';
  const refresh = async (): Promise<void> => {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      const res = await fetch(window.location.href, { credentials: 'same-origin' });
      if (!res.ok) {
        if (status) status.textContent = label;
        return;
      }
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html');
      // The scan is done meanwhile: its screen is another (the site report), opened whole.
      if (!fresh.querySelector('[data-scan-events]')) {
        source.close();
        window.location.reload();
        return;
      }
      for (const part of document.querySelectorAll<HTMLElement>('[data-live][id]')) {
        const next = fresh.getElementById(part.id);
        if (next) part.replaceChildren(...[...next.childNodes].map((n) => document.importNode(n, true)));
      }
      markScrollers();
    } catch {
      // The next event tries again.
      if (status) status.textContent = label;
    } finally {
      fetching = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  };
  const source = new EventSource(url);
  source.addEventListener('state', (e) => {
    const ev = JSON.parse((e as MessageEvent<string>).data) as ScanEvent;
    label = ev.label;
    if (ev.done) {
      source.close();
      window.location.reload();
      return;
    }
    if (ev.key !== box.dataset.key) {
      box.dataset.key = ev.key;
      void refresh();
    }
  });
}

for (const box of document.querySelectorAll<HTMLElement>('[data-scan-events]')) followScan(box);

/**
 * Fields of one choice only (New scan's URLs for a list, its Crawl depth for a crawl: data-only-when="source=list"):
 * shown while the form's field of that name has that value, hidden otherwise. Without script every field stays visible.
 */
function showFieldsOfChoice(form: HTMLFormElement): void {
  for (const el of form.querySelectorAll<HTMLElement>('[data-only-when]')) {
    const [name, value] = (el.dataset.onlyWhen ?? '').split('=');
    const field = name ? form.elements.namedItem(name) : null;
    if (field instanceof HTMLSelectElement) el.hidden = field.value !== value;
  }
}

for (const form of document.querySelectorAll<HTMLFormElement>('form')) {
  if (form.querySelector('[data-only-when]')) showFieldsOfChoice(form);
}
document.addEventListener('change', (e) => {
  const field = e.target;
  if (field instanceof HTMLSelectElement && field.form?.querySelector('[data-only-when]')) showFieldsOfChoice(field.form);
});

/**
 * A recording file, read into its text field as soon as it is chosen: the person sees (and may edit) what will be
 * sent, and the file input is emptied so that the form sends the text alone. Without script the form posts the file.
 */
document.addEventListener('change', (e) => {
  const input = e.target;
  if (!(input instanceof HTMLInputElement) || input.type !== 'file' || !input.dataset.fills) return;
  const text = document.getElementById(input.dataset.fills);
  const file = input.files?.[0];
  if (!(text instanceof HTMLTextAreaElement) || !file) return;
  const note = input.parentElement?.querySelector<HTMLElement>('[data-read-note]');
  void file.text().then((content) => {
    text.value = content;
    input.value = '';
    if (note) note.textContent = `${file.name} was read into the field above.`;
  }, () => {
    if (note) note.textContent = `${file.name} could not be read.`;
  });
});

/** A "Copy" button (data-copy: the id of the field whose text it copies): says it copied, or selects the text to copy by hand. */
document.addEventListener('click', (e) => {
  const button = (e.target as Element | null)?.closest<HTMLButtonElement>('button[data-copy]');
  if (!button) return;
  const field = document.getElementById(button.dataset.copy ?? '') as HTMLTextAreaElement | HTMLInputElement | null;
  if (!field) return;
  const label = button.textContent;
  const said = (text: string) => {
    button.textContent = text;
    setTimeout(() => { button.textContent = label; }, 2000);
  };
  navigator.clipboard.writeText(field.value).then(() => said('Copied'), () => {
    field.select();
    said('Press Ctrl+C to copy');
  });
});

/**
 * Live parts of a screen (data-poll: the URL of their fresh HTML; the Field screen's page views of the last 5 minutes):
 * fetched again every 5 s while the tab is shown, and at once when it is shown again (someone who pasted the snippet
 * loads a page of their site in another tab, then comes back). Each fresh part takes the place of the one of its id,
 * only when its text changed (a status region says each change once).
 */
function pollLive(box: HTMLElement): void {
  const url = box.dataset.poll;
  if (!url) return;
  let fetching = false;
  const refresh = async (): Promise<void> => {
    if (fetching || document.hidden) return;
    fetching = true;
    try {
      const res = await fetch(url, { credentials: 'same-origin' });
      if (!res.ok) return;
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html');
      for (const next of fresh.body.querySelectorAll<HTMLElement>('[id]')) {
        const part = box.querySelector<HTMLElement>(`#${CSS.escape(next.id)}`);
        if (part && part.textContent !== next.textContent) part.replaceChildren(...[...next.childNodes].map((n) => document.importNode(n, true)));
      }
    } catch {
      // The next turn tries again.
    } finally {
      fetching = false;
    }
  };
  window.setInterval(() => void refresh(), 5000);
  document.addEventListener('visibilitychange', () => void refresh());
}

for (const box of document.querySelectorAll<HTMLElement>('[data-poll]')) pollLive(box);
