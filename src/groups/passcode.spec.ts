import { webcrypto } from 'node:crypto';
import { hashPasscode, verifyPasscode } from './passcode';

describe('group passcodes', () => {
  it('a hash verifies its passcode (NFC-normalised) and nothing else', async () => {
    const stored = await hashPasscode('caf\u00e9');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    await expect(verifyPasscode('cafe\u0301', stored)).resolves.toBe(true);
    await expect(verifyPasscode('cafe', stored)).resolves.toBe(false);
    await expect(verifyPasscode('caf\u00e9', 'bcrypt$x')).resolves.toBe(false);
  });

  it("a burst of checks leaves libuv's pool free for a database log-in's WebCrypto calls", async () => {
    const stored = await hashPasscode('right');
    let finished = 0;
    const burst = Array.from({ length: 16 }, (_, i) => verifyPasscode(i % 2 ? 'right' : 'wrong', stored).then(() => finished++));
    // What pg's SCRAM exchange does several times per new connection: one job on the same pool.
    await webcrypto.subtle.digest('SHA-256', Buffer.from('client-first-message'));
    const finishedBeforeDigest = finished;
    await Promise.all(burst);
    // Queued behind the burst on four threads, the digest would wait for at least 12 checks.
    expect(finishedBeforeDigest).toBeLessThan(4);
  });
});
