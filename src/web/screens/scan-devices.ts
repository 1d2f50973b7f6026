/**
 * A scan per device in the app (docs/scans.md "Devices"): the New scan form's Devices (one scan per device checked,
 * as POST /scans' `devices`), and on a scan's screen its device and its siblings (the other devices' scans of the same
 * request), with their main site figures side by side.
 */
import { COMPARED_SITE_FIGURES, formatSite } from '../../analysis/named-site-figures.js';
import type { ScanView } from '../../core/scans/scan-export.js';
import { readScanFigures } from '../../core/scans/scan-readers.js';
import type { scanProgress, ScanRow } from '../../core/scans/scans.js';
import { DEVICE_CLASSES } from '../../core/vocabulary/device-classes.js';
import { esc } from '../kit.js';
import type { FormFields } from '../session.js';
import { deviceLabel, STATE_NAMES } from './scan-view.js';

const checked = (on: boolean) => (on ? ' checked' : '');

/**
 * The form's Devices: a box per device class, Desktop checked until the form is sent. Its name is its legend alone; what
 * it does is its hint, by aria-describedby.
 */
export function devicesField(form: FormFields): string {
  const chosen = form.has('csrf') ? form.all('devices') : ['desktop'];
  const boxes = DEVICE_CLASSES.map((c) => `<label class="check"><input type="checkbox" name="devices" value="${c.id}"${checked(chosen.includes(c.id))}> ` +
    `${esc(c.label)}</label>`).join(' ');
  return `<fieldset class="device-choice scan-devices" id="f-devices" aria-describedby="f-devices-hint"><legend>Devices</legend>${boxes}
<span class="hint" id="f-devices-hint">Each page is tested once per device checked, a scan each, compared and alerted on per device. ` +
    'A phone runs on this server’s CPU slowed to a phone’s, over slow 4G unless the connection says otherwise, on a phone’s screen. ' +
    'None checked: Desktop, or a mid-tier phone with a Simulated device</span></fieldset>';
}

/**
 * The devices checked, as POST /scans' `devices` (the API's parser judges them); none checked: undefined, the one device
 * the options name, as POST /scans without `devices` (a form posted before Devices existed scans as it did).
 */
export function devicesFromForm(form: FormFields): string[] | undefined {
  const devices = form.all('devices');
  return devices.length === 0 ? undefined : devices;
}

type Progress = Awaited<ReturnType<typeof scanProgress>>;

/** A scan's device and its siblings, with their site figures side by side once any has some; nothing for a scan of one device. */
export function siblingsPart(s: ScanView, siblings: readonly { row: ScanRow; pages: Progress }[]): string {
  if (siblings.length === 0) return '';
  const all = [{ id: s.id, device: s.deviceClass, state: s.state, figures: s.figures, pages: s.pages, current: true },
    ...siblings.map(({ row, pages }) => ({ id: row.id, device: row.device_class, state: row.state, figures: readScanFigures(row.figures), pages,
      current: false }))];
  const links = siblings.map(({ row }) => `<a href="/scans/${esc(row.id)}">${esc(deviceLabel(row.device_class))}</a> ` +
    `<span class="muted">(${esc(STATE_NAMES[row.state] ?? row.state)})</span>`).join(', ');
  const intro = `<p>This scan tested each page as <b>${esc(deviceLabel(s.deviceClass))}</b>; the same request scanned the site as ${links}.</p>`;
  let table = '';
  if (all.some((x) => x.figures)) {
    const head = all.map((x) => `<th scope="col" class="num">${x.current ? esc(deviceLabel(x.device))
      : `<a href="/scans/${esc(x.id)}">${esc(deviceLabel(x.device))}</a>`}</th>`).join('');
    const rows = COMPARED_SITE_FIGURES.map((f) => `<tr><th scope="row">${esc(f.label)}</th>${all.map((x) => {
      const v = x.figures ? f.value({ figures: x.figures, pages: x.pages }) : undefined;
      return `<td class="num">${v === undefined ? '<span class="muted">–</span>' : esc(formatSite(f.unit, v))}</td>`;
    }).join('')}</tr>`).join('');
    table = '<p class="muted">Their site figures side by side (– where a scan has none yet, or its report type does not measure it).</p>' +
      `<div class="tablewrap"><table class="list scan-devices-table" aria-label="Site figures by device">` +
      `<thead><tr><th scope="col">Figure</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
  }
  return `<section class="card scan-siblings" aria-labelledby="scan-devices-h"><h2 id="scan-devices-h">Devices</h2>${intro}${table}</section>`;
}
