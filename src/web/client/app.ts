/**
 * The web app's only script (the screens work without it): asks before destructive forms are sent, follows
 * a running test live through server-sent events, opening its report when it completes (and showing a failed journey
 * again, with its steps), and reads a chosen recording file into the field it fills (data-fills: the textarea's id).
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
    // A journey that fails here is shown again, with the steps it completed and its last screen.
    const failedNow = ev.state === 'error' && box.dataset.current !== 'error' && box.dataset.reloadOnError !== undefined;
    box.dataset.current = ev.state;
    if (ev.state === 'completed' || ev.state === 'error') source.close();
    if (ev.state === 'completed' && ev.report) window.location.assign(ev.report);
    if (failedNow) window.location.reload();
  });
}

for (const box of document.querySelectorAll<HTMLElement>('[data-events]')) followTest(box);

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
