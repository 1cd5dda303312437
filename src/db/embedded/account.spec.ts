import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canReach } from './account';

describe('canReach', () => {
  let root: string;
  // An account that owns nothing here: only the "other" bits apply to it.
  const stranger = { uid: 54321, gid: 54321 };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'can-reach-'));
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'open', 'deeper'), { recursive: true, mode: 0o755 });
    mkdirSync(join(root, 'private', 'inside'), { recursive: true, mode: 0o755 });
    chmodSync(join(root, 'private'), 0o700);
    writeFileSync(join(root, 'open', 'deeper', 'program'), '', { mode: 0o755 });
    writeFileSync(join(root, 'private', 'inside', 'program'), '', { mode: 0o755 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('needs search permission on every ancestor', () => {
    expect(canReach(join(root, 'open', 'deeper', 'program'), stranger, 5)).toBe(true);
    expect(canReach(join(root, 'private', 'inside', 'program'), stranger, 5)).toBe(false);
    expect(canReach(join(root, 'private', 'inside'), stranger, 1)).toBe(false);
  });

  it('checks the asked bits on the target itself', () => {
    expect(canReach(join(root, 'open', 'deeper'), stranger, 1)).toBe(true);
    expect(canReach(join(root, 'open', 'deeper'), stranger, 2)).toBe(false);
  });

  it('uses the owner bits for the owner', () => {
    const st = statSync(join(root, 'private'));
    expect(canReach(join(root, 'private', 'inside', 'program'), { uid: st.uid, gid: st.gid }, 5)).toBe(true);
  });

  it('a path that does not exist is not reachable', () => {
    expect(canReach(join(root, 'missing', 'program'), stranger, 1)).toBe(false);
  });
});
