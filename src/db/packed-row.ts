/**
 * A row read as one text, its fields joined by FIELD_SEP, for the lists that write pages of many
 * rows straight to JSON. node-postgres cuts a string from the wire for each field of a result and
 * stores it on a row object: for a page of fifty groups (a thousand fields) that costs more than
 * the rest of the request. PostgreSQL turns each value into text either way, so joining them costs
 * it about nothing, and one field a row split in JavaScript costs a fraction of a thousand.
 *
 * No part may be NULL (it would make the whole row NULL: write a null as '' or as JSON's `null`)
 * or hold the separator, a control character: free text is packed as its JSON (jsonOrNullSql),
 * which escapes every control character, as do a jsonb's and a json's text.
 */
export const FIELD_SEP = '\u0001';

/** The SQL of the parts joined by FIELD_SEP: one text. */
export const packedSql = (parts: readonly string[]): string => parts.map((p) => `(${p})`).join(' || chr(1) || ');

/** The fields of a row packed by packedSql. */
export const unpack = (text: string): string[] => text.split(FIELD_SEP);

/** A text value as JSON (a string, escaped as JSON.stringify escapes it), or `null`. */
export const jsonOrNullSql = (expr: string): string => `coalesce(to_json(${expr})::text, 'null')`;

/** A value as text, or '' for none (for a uuid, a number or an instant, which are never ''). */
export const textOrEmptySql = (expr: string): string => `coalesce((${expr})::text, '')`;
