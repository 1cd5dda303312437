/** What stands in for a user name or password. */
const MASK = '***';

/**
 * A webhook URL as it may be shown (answers, audit entries, logs): each part of its userinfo
 * that is present replaced by `***` (`https://***:***@hooks.example.com/x`), the rest as written.
 * Deliveries use the stored URL; this is only what anyone reads.
 *
 * The userinfo is cut out of the text as written rather than the URL re-serialised, so a path or
 * query the parser would percent-encode reads as it was registered. Should that cut not give a URL
 * the parser reads as the original with its credentials masked (an odd spelling the cut does not
 * follow), the parser's own serialisation with masked credentials is shown instead: never the
 * credentials.
 */
export function maskUrlCredentials(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Stored URLs were all parsed when registered; should one not parse, what precedes an @ of its authority goes.
    return raw.replace(/^([a-z][a-z0-9+.-]*:[/\\]*)?[^/\\?#]*@/i, `$1${MASK}@`);
  }
  if (!url.username && !url.password) return raw;
  const userinfo = `${url.username ? MASK : ''}${url.password ? `:${MASK}` : ''}`;
  const cut = /^(\s*[a-z][a-z0-9+.-]*:[/\\]*)([^/\\?#]*)@/i.exec(raw);
  if (cut) {
    const masked = `${cut[1]}${userinfo}@${raw.slice(cut[0].length)}`;
    if (readsAs(masked, url)) return masked;
  }
  url.username = url.username ? MASK : '';
  url.password = url.password ? MASK : '';
  return url.href;
}

/** Whether `text` parses to `original` with its userinfo masked, and nothing else changed. */
function readsAs(text: string, original: URL): boolean {
  let m: URL;
  try {
    m = new URL(text);
  } catch {
    return false;
  }
  return (
    m.username === (original.username ? MASK : '') &&
    m.password === (original.password ? MASK : '') &&
    m.protocol === original.protocol &&
    m.host === original.host &&
    m.pathname === original.pathname &&
    m.search === original.search &&
    m.hash === original.hash
  );
}
