/** Alert conditions and events of a page, webhooks and their deliveries (issue 12). */
import { ALERT_METRICS, CONSECUTIVE_MAX, OPERATORS } from '../../core/alerts/alerts.js';
import { WEBHOOK_EVENTS } from '../../core/alerts/webhooks.js';
import { DELIVERY_EVENTS } from '../../core/vocabulary/webhook-events.js';
import { ALERT_EVENTS_LIST, DELIVERIES_LIST } from '../../core/vocabulary/lists.js';
import { parseListQuery } from '../query.js';
import { bool, document, errors, idParams, int, link, listQuerySchema, num, obj, ok, ref, resource, str } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

const CONDITION_HINT = 'send {"data":{"type":"performance_alert_condition","attributes":{"metric":"fully_loaded_time","operator":"gt","value":3000}}}';
const WEBHOOK_HINT = 'send {"data":{"type":"webhook","attributes":{"url":"https://example.com/hook","events":["alert.triggered"]}}}';

const conditionAttributes = (required: string[]) =>
  obj(
    {
      metric: str(`a numeric report attribute: ${ALERT_METRICS.join(', ')}`, { example: 'fully_loaded_time' }),
      operator: str('gt, gte, lt, lte (threshold) or regression (significantly worse than the page\'s history)', { enum: [...OPERATORS] }),
      value: num('the threshold; for regression the smallest relative change that matters (0.1 = 10 %)'),
      consecutive: int(`reports in a row that must cross before it triggers, 1 to ${CONSECUTIVE_MAX}; default 1`),
      enabled: bool('default true'),
    },
    required,
  );

const list = (item: string) => obj({ data: { type: 'array', items: ref(item) }, links: ref('ListLinks'), meta: ref('ListMeta') }, ['data', 'links', 'meta']);

export const ALERT_SCHEMAS: Record<string, JsonSchema> = {
  AlertCondition: resource(
    'performance_alert_condition',
    obj(
      {
        metric: str(), operator: str(undefined, { enum: [...OPERATORS] }), value: num(), consecutive: int(), enabled: bool(),
        state: str('ok, or triggered until it resolves', { enum: ['ok', 'triggered'] }), created: int('Unix time'),
      },
      ['metric', 'operator', 'value', 'consecutive', 'enabled', 'state', 'created'],
    ),
    obj({ self: link(), page: link() }, ['self']),
  ),
  AlertConditionDocument: document(ref('AlertCondition')),
  AlertConditionList: obj({ data: { type: 'array', items: ref('AlertCondition') }, links: ref('SelfLinks') }, ['data']),
  AlertConditionRequest: obj({ data: obj({ type: str(undefined, { enum: ['performance_alert_condition'] }), attributes: conditionAttributes([]) }) }, ['data']),
  AlertEvent: resource(
    'performance_alert_event',
    obj(
      {
        condition: str('condition ID'), report: str('report ID'), metric: str(),
        value: num('measured: the report\'s value, or the recent median for regression'),
        threshold: num('the threshold, or for regression the earlier median moved by the condition\'s relative change'),
        state: str(undefined, { enum: ['triggered', 'resolved'] }), created: int('Unix time'),
        note: str('Webgauge extension: what the check left out and why (the grade and structure score compare only with ' +
          'reports scored from the same Lighthouse structure audits); absent when nothing was'),
      },
      ['condition', 'report', 'metric', 'value', 'threshold', 'state', 'created'],
    ),
    obj({ self: link(), report: link(), condition: link() }),
  ),
  AlertEventList: list('AlertEvent'),
  Webhook: resource(
    'webhook',
    obj(
      {
        url: str(), events: { type: 'array', items: str(undefined, { enum: [...WEBHOOK_EVENTS] }) }, created: int('Unix time'),
        secret: str('the signing secret: only in the answer of POST /webhooks, never again'),
      },
      ['url', 'events', 'created'],
    ),
    obj({ self: link(), deliveries: link() }, ['self']),
  ),
  WebhookDocument: document(ref('Webhook')),
  WebhookList: obj({ data: { type: 'array', items: ref('Webhook') }, links: ref('SelfLinks') }, ['data']),
  WebhookRequest: obj({
    data: obj({
      type: str(undefined, { enum: ['webhook'] }),
      attributes: obj({ url: str('absolute http(s) URL; private addresses only where WEBGAUGE_ALLOW_TARGETS allows'), events: { type: 'array', items: str(undefined, { enum: [...WEBHOOK_EVENTS] }) } }, ['url', 'events']),
    }, ['attributes']),
  }, ['data']),
  WebhookDelivery: resource(
    'webhook_delivery',
    obj(
      {
        event: str(undefined, { enum: [...DELIVERY_EVENTS] }),
        state: str('pending (retrying), delivered, or failed (gave up after 24 h)', { enum: ['pending', 'delivered', 'failed'] }),
        created: int('Unix time'),
        next_attempt: int('Unix time of the next retry; null unless pending', { nullable: true }),
        attempts: {
          type: 'array',
          items: obj({
            created: int('Unix time'), status: str(undefined, { enum: ['succeeded', 'failed'] }), duration: int('ms'),
            response_code: int('HTTP status; null when there was no answer', { nullable: true }), error: str(undefined, { nullable: true }),
          }),
        },
      },
      ['event', 'state', 'created', 'attempts'],
    ),
    obj({}),
  ),
  WebhookDeliveryList: list('WebhookDelivery'),
};

const pageParams = idParams('page ID');
const conditionParams = idParams('page ID', { condition_id: str('alert condition ID', { minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$' }) });
const webhookParams = idParams('webhook ID');
const TAGS = ['Alerts'];
const conditionOk = ok('The alert condition.', ref('AlertConditionDocument'));
const webhookOk = ok('The webhook.', ref('WebhookDocument'));

export const ALERT_ROUTES: Record<string, RouteSchema> = {
  'GET /pages/:id/performance_alert_conditions': {
    operationId: 'listAlertConditions', summary: 'List a page\'s alert conditions', description: 'All of them, oldest first (not paginated).',
    tags: TAGS, params: pageParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40402',
    responses: { '200': ok('The conditions.', ref('AlertConditionList')), ...errors('E40402') },
  },
  'POST /pages/:id/performance_alert_conditions': {
    operationId: 'createAlertCondition', summary: 'Create an alert condition',
    description: 'metric, operator and value are required. Checked after every later report of the page.',
    tags: TAGS, params: pageParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40402',
    body: { schema: ref('AlertConditionRequest'), errorCode: 'E4001', hint: CONDITION_HINT },
    responses: { '201': ok('Created.', ref('AlertConditionDocument'), { location: true }), ...errors('E4001', 'E40301', 'E40402', 'E41500') },
  },
  'GET /pages/:id/performance_alert_conditions/:condition_id': {
    operationId: 'getAlertCondition', summary: 'Get an alert condition', description: 'The condition and its state.',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40407',
    responses: { '200': conditionOk, ...errors('E40402', 'E40407') },
  },
  'POST /pages/:id/performance_alert_conditions/:condition_id': {
    operationId: 'updateAlertCondition', summary: 'Update an alert condition',
    description: 'Partial update. Changing metric, operator or value, or disabling, starts it over from state ok (no event).',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40407',
    body: { schema: ref('AlertConditionRequest'), errorCode: 'E4001', hint: CONDITION_HINT },
    responses: { '200': conditionOk, ...errors('E4001', 'E40301', 'E40402', 'E40407', 'E41500') },
  },
  'DELETE /pages/:id/performance_alert_conditions/:condition_id': {
    operationId: 'deleteAlertCondition', summary: 'Delete an alert condition', description: 'Its past events stay in the page\'s event list.',
    tags: TAGS, params: conditionParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40407',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40402', 'E40407') },
  },
  'GET /pages/:id/performance_alert_events': {
    operationId: 'listAlertEvents', summary: 'List a page\'s alert events', description: 'Triggered and resolved events, newest first.',
    tags: TAGS, params: pageParams, paramsErrorCode: 'E40402',
    querystring: listQuerySchema(ALERT_EVENTS_LIST, 'created descending'),
    validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(ALERT_EVENTS_LIST, q),
    responses: { '200': ok('A page of events.', ref('AlertEventList')), ...errors('E40005', 'E40006', 'E40007', 'E40008', 'E40402') },
  },
  'GET /webhooks': {
    operationId: 'listWebhooks', summary: 'List webhooks', description: 'All webhooks of the account (without their secrets).',
    tags: TAGS, validationErrorCode: 'E40000', responses: { '200': ok('The webhooks.', ref('WebhookList')), ...errors() },
  },
  'POST /webhooks': {
    operationId: 'createWebhook', summary: 'Create a webhook',
    description: 'The answer carries attributes.secret, the key of the Webgauge-Signature HMAC, this once only.',
    tags: TAGS, validationErrorCode: 'E40000',
    body: { schema: ref('WebhookRequest'), errorCode: 'E4001', hint: WEBHOOK_HINT },
    responses: { '201': ok('Created.', ref('WebhookDocument'), { location: true }), ...errors('E4001', 'E40301', 'E41500') },
  },
  'GET /webhooks/:id': {
    operationId: 'getWebhook', summary: 'Get a webhook', description: 'The webhook (without its secret).',
    tags: TAGS, params: webhookParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40407', responses: { '200': webhookOk, ...errors('E40407') },
  },
  'DELETE /webhooks/:id': {
    operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Its pending deliveries are dropped.',
    tags: TAGS, params: webhookParams, validationErrorCode: 'E40000', paramsErrorCode: 'E40407',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40407') },
  },
  'GET /webhooks/:id/deliveries': {
    operationId: 'listWebhookDeliveries', summary: 'List a webhook\'s deliveries', description: 'Newest first, each with its attempts.',
    tags: TAGS, params: webhookParams, paramsErrorCode: 'E40407',
    querystring: listQuerySchema(DELIVERIES_LIST, 'created descending'), validationErrorCode: 'E40005',
    explainQuery: (q) => void parseListQuery(DELIVERIES_LIST, q),
    responses: { '200': ok('A page of deliveries.', ref('WebhookDeliveryList')), ...errors('E40005', 'E40006', 'E40007', 'E40008', 'E40407') },
  },
};
