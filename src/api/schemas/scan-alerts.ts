/** A scan's alert conditions and their verdicts (docs/scans.md "Alerts on a site"; core/scans/alert-conditions.ts, alert-verdicts.ts). */
import { SITE_BUDGET_NAMES } from '../../analysis/named-site-figures.js';
import { ALERT_KINDS, FIGURE_OPERATORS, MAX_ALERT_CONDITIONS } from '../../core/scans/alert-conditions.js';
import { int, num, obj, ref, str, strings } from './common.js';
import type { JsonSchema } from './types.js';
import { DEVICE_CLASS_IDS } from '../../core/vocabulary/device-classes.js';
import { DEVICE_NAME_WORDS } from '../../core/vocabulary/device-names.js';

const kinds = `figure (a site figure against a threshold; the default when figure is given), grade_drop, pages_worse, template_worse ` +
  '(changes since the site\'s previous completed scan)';

/** As POST /scans takes it: loosely typed, so that core's parser says what to fix (with the condition's index). */
const ScanAlertConditionInput = obj({
  kind: str(kinds),
  figure: str(`kind figure: ${SITE_BUDGET_NAMES.join(', ')}`),
  operator: str(`kind figure: ${FIGURE_OPERATORS.join(', ')}`),
  value: { anyOf: [{ type: 'number' }, { type: 'string' }], description: 'figure: the threshold (ms, a layout shift, a score or pages); ' +
    'grade_drop: letters fallen, at least (default 2); pages_worse, template_worse: more than this many (default 0)' },
  device: str(`Webgauge extension: judged on this device's scan only (${DEVICE_NAME_WORDS}), one of the request's devices; default every device's`),
}, [], { example: { figure: 'lcp_p75', operator: 'gt', value: 2500 } });

const ScanAlertCondition = obj({
  kind: str(undefined, { enum: [...ALERT_KINDS] }),
  figure: str('kind figure: the site figure', { nullable: true, enum: [...SITE_BUDGET_NAMES, null] }),
  operator: str('kind figure', { nullable: true, enum: [...FIGURE_OPERATORS, null] }),
  value: num('the threshold, letters or count (defaults filled in)'),
  device: str('judged on this device\'s scan only; absent: on every device\'s', { enum: [...DEVICE_CLASS_IDS] }),
}, ['kind', 'figure', 'operator', 'value']);

const ScanAlertVerdict = obj({
  ...(ScanAlertCondition.properties as Record<string, JsonSchema>),
  holds: { type: 'boolean', nullable: true, description: 'null: not evaluated (no value, or no previous scan to compare with); message says why' },
  measured: { type: 'number', nullable: true, description: 'the figure\'s value; of a comparison kind, the pages (templates) counted' },
  message: str('the condition, its outcome and the pages to blame (at most 10, "and N more")'),
  outcome: str('the message without the pages'),
  pages: { type: 'array', items: obj({ url: str(), template: str(), report: str('report ID in this scan', { nullable: true }), why: str() }),
    description: 'the pages to blame, at most 10' },
  more_pages: int('pages to blame beyond `pages`'),
  templates: { type: 'array', items: obj({ template: str(), pages: int('pages measured in both scans'), reasons: strings() }),
    description: 'template_worse: the templates that got worse' },
  compared_with: str('comparison kinds: the scan compared with', { nullable: true }),
  notes: strings('comparison kinds: the comparison\'s notes (different options or Lighthouse versions: grades left out)'),
  change: str('triggered: holds now and not at its last verdict on an earlier scan of the site; resolved: the reverse',
    { nullable: true, enum: ['triggered', 'resolved', null] }),
  previous_scan: str('the earlier scan whose verdict of the same condition this one follows', { nullable: true }),
}, ['kind', 'holds', 'message', 'pages', 'change']);

export const SCAN_ALERT_SCHEMAS: Record<string, JsonSchema> = { ScanAlertConditionInput, ScanAlertCondition, ScanAlertVerdict };

export const alertConditionsInput: JsonSchema = {
  type: 'array', maxItems: MAX_ALERT_CONDITIONS, items: ref('ScanAlertConditionInput'),
  description: `checked when the scan completes, at most ${MAX_ALERT_CONDITIONS}: a site figure against a threshold, or a change since the site's previous scan`,
};
export const alertConditions: JsonSchema = { type: 'array', items: ref('ScanAlertCondition'), description: 'the scan\'s alert conditions, defaults filled in' };
export const alertVerdicts: JsonSchema = {
  type: 'array', nullable: true, items: ref('ScanAlertVerdict'), description: 'the verdicts of the alert conditions once the scan completed; null before',
};
