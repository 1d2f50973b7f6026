/**
 * The events of webhooks: those an account subscribes a webhook to (core/alerts/webhooks.ts, the API's schemas,
 * the app's event choices), and the events a delivery may carry, which add the app's one-off test event
 * (notify/test-event.ts). The deliveries list filters on the latter (lists.ts).
 */
export const WEBHOOK_EVENTS = ['test.completed', 'test.error', 'alert.triggered', 'alert.resolved', 'scan.completed', 'scan.alert', 'field.alert'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** "Send test event": delivered at once and recorded, never subscribed to. */
export const TEST_EVENT = 'webhook.test';

export const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, TEST_EVENT] as const;
