import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Slots } from '../common/bulkhead/slots';

/** Group passcodes (SPEC §2) are stored only as a salted scrypt hash: `scrypt$N$r$p$salt$hash`. */
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/**
 * Derivations running at once: two threads of libuv's pool (4 unless UV_THREADPOOL_SIZE says more)
 * are left to everything else that needs one. A new database connection's SCRAM exchange (pg's
 * WebCrypto calls), DNS lookups and file reads all queue there behind whatever scrypt jobs are
 * queued: a burst of passcode joins once held a connection's log-in past its 1.5 s connect
 * timeout, and requests answered 503. Waiting derivations queue here instead.
 */
const DERIVATIONS = new Slots(Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 2));

function derive(passcode: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return DERIVATIONS.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(passcode.normalize('NFC'), salt, KEY_LENGTH, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

export async function hashPasscode(passcode: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(passcode, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check of a passcode against a stored hash; false for a malformed hash. */
export async function verifyPasscode(passcode: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(passcode, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
