/** The events a webhook is called for: a task finished, one way or the other. */
export const WEBHOOK_EVENT_TYPES = ['task.completed', 'task.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
