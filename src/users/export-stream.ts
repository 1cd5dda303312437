/**
 * Joins the small pieces a document is written in into chunks of at least `min` characters (the
 * last may be shorter), skipping empty ones. The first piece goes out alone and at once: the
 * answer starts before the first read.
 */
export async function* coalesce(source: AsyncIterable<string>, min: number): AsyncGenerator<string, void, undefined> {
  let pending = '';
  let first = true;
  for await (const piece of source) {
    pending += piece;
    if (pending.length > 0 && (first || pending.length >= min)) {
      yield pending;
      pending = '';
      first = false;
    }
  }
  if (pending.length > 0) yield pending;
}

/** A JSON array of rows read in batches: one piece per batch; `write` gives a row's JSON, or null to leave it out. */
export async function* jsonArray<R>(batches: AsyncIterable<R[]>, write: (row: R) => string | null): AsyncGenerator<string, void, undefined> {
  let open = '[';
  for await (const batch of batches) {
    let piece = '';
    for (const row of batch) {
      const json = write(row);
      if (json === null) continue;
      piece += open + json;
      open = ',';
    }
    if (piece) yield piece;
  }
  yield open === '[' ? '[]' : ']';
}

/**
 * A JSON array of parents, each with a list of children, from rows that each carry a parent and
 * one child (null for a parent without children), consecutive per parent: a parent with many
 * children streams like any list. `parent` gives the parent's JSON object, to which the list is
 * added as the last field, `key`.
 */
export async function* groupedJsonArray<R>(
  batches: AsyncIterable<R[]>,
  group: { idOf: (row: R) => string; parent: (row: R) => object; key: string; child: (row: R) => unknown },
): AsyncGenerator<string, void, undefined> {
  let current: string | null = null;
  let childOpen = '[';
  /** Ends the current parent: its list (empty when no child was written), then the object. */
  const closeParent = () => `${childOpen === '[' ? '[]' : ']'}}`;
  for await (const batch of batches) {
    let piece = '';
    for (const row of batch) {
      const id = group.idOf(row);
      if (id !== current) {
        const parent = JSON.stringify(group.parent(row));
        const fields = parent.slice(1, -1);
        piece += `${current === null ? '[' : `${closeParent()},`}{${fields}${fields ? ',' : ''}${JSON.stringify(group.key)}:`;
        childOpen = '[';
        current = id;
      }
      const child = group.child(row);
      if (child === null || child === undefined) continue;
      piece += childOpen + JSON.stringify(child);
      childOpen = ',';
    }
    if (piece) yield piece;
  }
  yield current === null ? '[]' : `${closeParent()}]`;
}
