/** Alert conditions on real visitors' figures (issue 51): docs/field.md "Alerts on real visitors" says it in words. */
import { NAMED_FIELD_FIGURE_NAMES } from '../../analysis/named-field-figures.js';
import { FIELD_ALERT_DEFAULTS, FIELD_ALERT_DEVICES, FIELD_ALERT_OPERATORS, FIELD_ALERT_SHAPE, FIELD_ALERT_WINDOW_MAX } from '../../core/field/field-alerts.js';
import { FIELD_ALERT_EVENTS_LIST } from '../../core/vocabulary/lists.js';
import { parseListQuery } from '../query.js';
import { bool, document, errors, idParams, int, link, listQuerySchema, num, obj, ok, ref, resource, str } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

/** A page of a list, as every list of the API answers (links and meta for the cursor). */
const list = (item: string) => obj({ data: { type: 'array', items: ref(item) }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']);

const attributes = (required: string[]) => obj({
  figure: str('field_<lcp|inp|cls|fcp|ttfb>_p75 (ms; CLS unitless) or field_<…>_poor_share (0-1)', { enum: [...NAMED_FIELD_FIGURE_NAMES] }),
  operator: str('gt, gte, lt or lte', { enum: [...FIELD_ALERT_OPERATORS] }),
  value: num('the limit, in the figure\'s unit'),
  device: str('mobile, tablet, desktop or all (default all)', { enum: [...FIELD_ALERT_DEVICES] }),
  template: str('a URL template of the site (e.g. /blog/:slug); "" or absent: the whole site'),
  path: str('a path of the site (a tracked one); "" or absent: the template or the whole site'),
  window_days: int(`the last 1 to ${FIELD_ALERT_WINDOW_MAX} days judged (default ${FIELD_ALERT_DEFAULTS.window_days})`),
  min_views: int(`fewer page views than this and the condition is not judged (default ${FIELD_ALERT_DEFAULTS.min_views})`),
  enabled: bool('default true'),
}, required);

export const FIELD_ALERT_SCHEMAS: Record<string, JsonSchema> = {
  FieldAlertCondition: resource('field_alert_condition', obj({
    figure: str(), operator: str(), value: num(), device: str(), template: str('"" for the whole site'), path: str('"" unless a path'),
    window_days: int(), min_views: int(), enabled: bool(),
    state: str('fine, triggered, or not_judged (fewer page views than min_views)', { enum: ['fine', 'triggered', 'not_judged'] }),
    state_since: int('Unix seconds'), judged: int('Unix seconds of the last judgement; null before the first', { nullable: true }),
    measured: { type: 'number', nullable: true, description: 'the figure at the last judgement; null without one' },
    page_views: int('the page views that judgement read; null before the first', { nullable: true }),
    text: str('the condition in words'), created: int('Unix seconds'),
  }), obj({ self: link(), field: link('the Field screen\'s view of the condition\'s figures') })),
  FieldAlertConditionDocument: document(ref('FieldAlertCondition')),
  FieldAlertConditionList: obj({ data: { type: 'array', items: ref('FieldAlertCondition') }, links: ref('SelfLinks') }, ['data']),
  FieldAlertConditionRequest: obj({ data: obj({ type: str('field_alert_condition (may be omitted)', { enum: ['field_alert_condition'] }),
    attributes: attributes(['figure', 'operator', 'value']) }, ['attributes']) }, ['data']),
  FieldAlertEvent: resource('field_alert_event', obj({
    condition: str('condition ID (the condition may have changed or gone since: its words at the time are here)'),
    state: str('triggered or resolved', { enum: ['triggered', 'resolved'] }),
    figure: str(), operator: str(), threshold: num('the condition\'s value at the time'), measured: num('the figure over the window'),
    page_views: int('the page views the figure was read from'), device: str(), template: str('"" for the whole site'), path: str('"" unless a path'),
    window_days: int(), min_views: int(), text: str('the condition in words'), created: int('Unix seconds of the judgement'),
  }, ['condition', 'state', 'figure', 'operator', 'threshold', 'measured', 'page_views', 'created']),
  obj({ condition: link(), field: link('the Field screen\'s view of the figures the judgement read') })),
  FieldAlertEventList: list('FieldAlertEvent'),
  FieldAlertConditionChangeRequest: obj({ data: obj({ type: str('field_alert_condition (may be omitted)', { enum: ['field_alert_condition'] }),
    attributes: attributes([]) }, ['attributes']) }, ['data']),
};

const siteParams = idParams('field site ID');
const conditionParams = idParams('field site ID', { condition_id: str('field alert condition ID', { minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$' }) });
const TAGS = ['Field data'];
const one = ok('The condition.', ref('FieldAlertConditionDocument'));

export const FIELD_ALERT_ROUTES: Record<string, RouteSchema> = {
  'GET /field_sites/:id/alert_conditions': {
    operationId: 'listFieldAlertConditions', summary: 'List a field site\'s alert conditions', description: 'Oldest first, each with its state.',
    tags: TAGS, params: siteParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40418',
    responses: { '200': ok('The conditions.', ref('FieldAlertConditionList')), ...errors('E40418') },
  },
  'POST /field_sites/:id/alert_conditions': {
    operationId: 'createFieldAlertCondition', summary: 'Create a field alert condition',
    description: 'figure, operator and value are required. Judged every hour over the window, only on min_views page views or more; a change notifies through the webhook event field.alert and e-mail.',
    tags: TAGS, params: siteParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40418',
    body: { schema: ref('FieldAlertConditionRequest'), errorCode: 'E4001', hint: FIELD_ALERT_SHAPE },
    responses: { '201': ok('Created.', ref('FieldAlertConditionDocument'), { location: true }), ...errors('E4001', 'E40301', 'E40418', 'E41500') },
  },
  'GET /field_sites/:id/alert_conditions/:condition_id': {
    operationId: 'getFieldAlertCondition', summary: 'A field alert condition', description: 'The condition, its state and its last judgement.',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40419',
    responses: { '200': one, ...errors('E40418', 'E40419') },
  },
  'PATCH /field_sites/:id/alert_conditions/:condition_id': {
    operationId: 'changeFieldAlertCondition', summary: 'Change a field alert condition',
    description: 'Only the attributes given change; a changed condition is judged afresh (not judged until the next judgement; no event).',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40419',
    body: { schema: ref('FieldAlertConditionChangeRequest'), errorCode: 'E4001', hint: FIELD_ALERT_SHAPE },
    responses: { '200': one, ...errors('E4001', 'E40301', 'E40418', 'E40419', 'E41500') },
  },
  'DELETE /field_sites/:id/alert_conditions/:condition_id': {
    operationId: 'deleteFieldAlertCondition', summary: 'Delete a field alert condition', description: 'It is judged no more.',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40419',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40418', 'E40419') },
  },
  'GET /field_sites/:id/alert_events': {
    operationId: 'listFieldAlertEvents', summary: 'List a field site\'s alert events',
    description: 'Each time a condition triggered or resolved (told once through the webhook event field.alert and e-mail), newest first.',
    tags: TAGS, params: siteParams, paramsErrorCode: 'E40418',
    querystring: listQuerySchema(FIELD_ALERT_EVENTS_LIST, 'created descending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(FIELD_ALERT_EVENTS_LIST, q),
    responses: { '200': ok('A page of events.', ref('FieldAlertEventList')), ...errors('E40005', 'E40006', 'E40007', 'E40008', 'E40418') },
  },
};
