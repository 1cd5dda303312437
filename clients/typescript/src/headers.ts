/** Request headers as a Fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function isHeaders(source: HeaderSource): source is Headers {
  return typeof (source as Headers).get === 'function';
}

/** The value of header `name`, compared case-insensitively; the first of repeated values. */
export function headerValue(source: HeaderSource, name: string): string | undefined {
  if (isHeaders(source)) return source.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(source)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value[0];
  }
  return undefined;
}
