/**
 * The strings a document names, as `svc_names` finds them in its jsonb: every string value and
 * every object key, at any depth (a string met twice is listed twice; the hash's DISTINCT folds
 * them). Walked over what JSON.stringify writes (each value after its toJSON, a property it drops
 * left out), which is the document the flush sends: the same set PostgreSQL would find in the jsonb
 * it parses from it, without PostgreSQL walking it (four jsonpath walks a change, about 0.07 ms of
 * its CPU for a member.joined). test/e2e/journal-names.e2e-spec.ts holds the two to each other.
 */
export function documentNames(doc: unknown): string[] {
  const names: string[] = [];
  let root = true;
  JSON.stringify(doc, function (this: unknown, key: string, value: unknown) {
    // The first call is the document itself, under the key '' of a wrapper that is not written.
    if (root) root = false;
    else if (!Array.isArray(this) && value !== undefined && typeof value !== 'function' && typeof value !== 'symbol') names.push(key);
    if (typeof value === 'string') names.push(value);
    return value;
  });
  return names;
}
