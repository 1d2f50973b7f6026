/**
 * The web app's only script (the screens work without it): asks before destructive forms are sent, and follows
 * a running test live through server-sent events, opening its report when it completes.
 */

document.addEventListener('submit', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) e.preventDefault();
});

interface TestEvent {
  state: 'queued' | 'started' | 'completed' | 'error';
  /** Tests ahead of this one at its location (queued only). */
  position?: number;
  error?: string;
  report?: string;
  label: string;
}

function followTest(box: HTMLElement): void {
  const url = box.dataset.events;
  if (!url) return;
  const state = box.querySelector<HTMLElement>('[data-state]');
  const detail = box.querySelector<HTMLElement>('[data-detail]');
  const source = new EventSource(url);
  source.addEventListener('state', (e) => {
    const ev = JSON.parse((e as MessageEvent<string>).data) as TestEvent;
    if (state) state.textContent = ev.label;
    if (detail) detail.textContent = ev.error ?? '';
    box.dataset.current = ev.state;
    if (ev.state === 'completed' || ev.state === 'error') source.close();
    if (ev.state === 'completed' && ev.report) window.location.assign(ev.report);
  });
}

for (const box of document.querySelectorAll<HTMLElement>('[data-events]')) followTest(box);
