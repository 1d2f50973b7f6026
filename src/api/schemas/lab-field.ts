/**
 * Lab beside field (issue 51): the field figures of a report's URL and device, and of a scan's site and device
 * (api/routes/lab-field.ts; docs/api.md "Field figures of a report or a scan"). Webgauge extensions.
 */
import { FIELD_FIGURE_NAMES } from '../../analysis/figures.js';
import { FIELD_DEVICES } from '../../core/field/beacon.js';
import { FIELD_MIN_VIEWS, LAB_FIELD_DAYS } from '../../core/field/lab-field.js';
import { DEVICE_CLASS_IDS } from '../../core/vocabulary/device-classes.js';
import { errors, idParams, int, link, num, obj, ok, ref, resource, str } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

const nullable = (s: JsonSchema): JsonSchema => ({ ...s, nullable: true });
const share = (description: string) => nullable(num(description));

const metricFigures = obj({
  page_views: int('views that measured this metric (n); a budget judges it only from ' + FIELD_MIN_VIEWS),
  p50: nullable(num('ms (CLS: unitless)')), p75: nullable(num('ms (CLS: unitless): the figure CrUX and Google judge by')), p90: nullable(num()),
  good: share('share 0-1 of views in the good band'), needs_improvement: share('share 0-1'), poor: share('share 0-1 of views in the poor band'),
  rating: str('the p75\'s band', { enum: ['good', 'needs_improvement', 'poor', null], nullable: true }),
});
const metrics = nullable(obj(Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, metricFigures]))));
const windowSchema = nullable(obj({ days: int(), from: int('Unix seconds: the first day\'s start (UTC)'), to: int('Unix seconds: now') }));
const site = nullable(obj({ id: str('field site ID'), name: str() }, ['id', 'name']));
const device = str('the visitors matched: a desktop test ↔ desktop visitors, a phone test ↔ mobile visitors', { enum: [...FIELD_DEVICES] });
const deviceClass = str('the device class of the lab test', { enum: [...DEVICE_CLASS_IDS] });
const common = {
  site, device, device_class: deviceClass, window: windowSchema,
  min_views: int(`page views a figure needs to be judged (${FIELD_MIN_VIEWS})`),
  page_views: int('page views of the basis in the window'), metrics,
  detail: str('what the figures are of, or (site null) how to set up a field site for the origin'),
};
const links = (extra: Record<string, JsonSchema>) => obj({ self: link(), ...extra, field: link('the Field screen\'s view of these figures') });

export const LAB_FIELD_SCHEMAS: Record<string, JsonSchema> = {
  ReportField: obj({ data: resource('report_field', obj({
    ...common, url: str(),
    basis: str(`path: the URL's own page views (at least ${FIELD_MIN_VIEWS}); template: its template's, the URL having fewer; too-few: neither has enough`,
      { enum: ['path', 'template', 'too-few', null], nullable: true }),
    path: nullable(str('the path as the field site keeps it')), template: nullable(str('the template the path counts under')),
    path_views: int(), template_views: int(),
  }), links({ report: link() })), links: ref('SelfLinks') }, ['data']),
  ScanField: obj({ data: resource('scan_field', obj({
    ...common, origin: str('the scan\'s site'),
    basis: str(`site: the whole field site's views for the device; too-few: fewer than ${FIELD_MIN_VIEWS}`, { enum: ['site', 'too-few', null], nullable: true }),
  }), links({ scan: link() })), links: ref('SelfLinks') }, ['data']),
};

export const LAB_FIELD_ROUTES: Record<string, RouteSchema> = {
  'GET /reports/:id/field': {
    operationId: 'getReportField', summary: 'Real visitors\' figures of a report\'s URL',
    description: `This account's own visitors of the report's URL over the last ${LAB_FIELD_DAYS} days, from the device class matching the test's ` +
      `(desktop ↔ desktop, phone ↔ mobile): per metric p75, page views, shares good / needs improvement / poor and rating. A URL with fewer ` +
      `than ${FIELD_MIN_VIEWS} page views is judged by its template's figures (basis template). No field site for the URL's origin: 200 ` +
      'with site null and a detail saying how to set one up.',
    tags: ['Field data'], params: idParams('report ID'), validationErrorCode: 'E40000', paramsErrorCode: 'E40401',
    responses: { '200': ok('The field figures.', ref('ReportField')), ...errors('E40401') },
  },
  'GET /scans/:id/field': {
    operationId: 'getScanField', summary: 'Real visitors\' figures of a scan\'s site',
    description: `The whole field site of the scan's origin over the last ${LAB_FIELD_DAYS} days, for the device class matching the scan's ` +
      '(desktop ↔ desktop, phone ↔ mobile). No field site for the origin: 200 with site null and a detail saying how to set one up.',
    tags: ['Field data'], params: idParams('scan ID'), validationErrorCode: 'E40000', paramsErrorCode: 'E40400',
    responses: { '200': ok('The field figures.', ref('ScanField')), ...errors('E40400') },
  },
};
