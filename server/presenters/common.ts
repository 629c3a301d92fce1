/** ISO 8601 with milliseconds, or null. */
export const iso = (date: Date | null) => (date ? date.toISOString() : null);
