/** Committed deliveries are announced here, so an idle worker starts at once instead of at its next tick. */
export const DELIVERIES_CHANNEL = 'svc_deliveries';
