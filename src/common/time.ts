/** ISO 8601 with milliseconds (DECISIONS §18), or null for a missing timestamp. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** ISO 8601 of a timestamp that is never null. */
export const isoNN = (d: Date): string => d.toISOString();
