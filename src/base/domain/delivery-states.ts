/** Where a webhook delivery stands: still being tried, delivered, or given up on. */
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
