import { keyRefusal } from './api-key-scopes';

describe('keyRefusal', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');
  const full = { scopes: ['read', 'write'] as const, expiresAt: null };
  const readOnly = { scopes: ['read'] as const, expiresAt: null };

  it('lets a full key that never expires do anything', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']) expect(keyRefusal(full, method, now)).toBeNull();
  });

  it('lets a read key read', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(keyRefusal(readOnly, method, now)).toBeNull();
  });

  it('refuses a read key every other method with 403 permission_denied naming the write scope', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const sut = keyRefusal(readOnly, method, now);
      expect(sut).toMatchObject({ code: 'permission_denied', status: 403 });
      expect(sut?.message).toMatch(/write scope/);
    }
  });

  it('refuses an expired key with 401 invalid_api_key saying it expired, from the expiry instant on', () => {
    for (const expiresAt of [now, now - 1]) {
      const sut = keyRefusal({ ...full, expiresAt }, 'GET', now);
      expect(sut).toMatchObject({ code: 'invalid_api_key', status: 401 });
      expect(sut?.message).toMatch(/expired at /);
    }
    expect(keyRefusal({ ...full, expiresAt: now + 1 }, 'GET', now)).toBeNull();
  });

  it('reports the expiry before the missing scope', () => {
    expect(keyRefusal({ scopes: ['read'], expiresAt: now - 1 }, 'POST', now)?.code).toBe('invalid_api_key');
  });
});
