const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const integer = new Intl.NumberFormat();

export const when = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : '—');
export const count = (n: number): string => integer.format(n);

/** A date as the value of an <input type="date"> (UTC, which is what the analytics read). */
export const dateInput = (d: Date): string => d.toISOString().slice(0, 10);

/** A short form of a long id, whole in its title. */
export const shortId = (id: string): string => (id.length > 13 ? `${id.slice(0, 8)}…` : id);
