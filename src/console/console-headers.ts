/**
 * The console runs only its own bundled code and talks only to this origin: everything else is
 * refused by the browser, so an injected string can neither run script nor send the token away.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers of one console file. index.html names the bundles by content hash, so it is revalidated
 * on every load while the hashed files are cached for good.
 */
export function consoleHeaders(path: string): Record<string, string> {
  return {
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
  };
}
