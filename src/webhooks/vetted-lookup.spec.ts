import type { LookupAddress, LookupOptions } from 'node:dns';
import { addressRefusal, RefusedAddressError, vettedLookup, type Resolve } from './vetted-lookup';

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

describe('addressRefusal', () => {
  it('passes a name whose every address may be reached', () => {
    expect(addressRefusal('hooks.example', [v4('203.0.113.7'), v6('2001:db8::7')])).toBeNull();
    expect(addressRefusal('hooks.example', [])).toBeNull();
  });

  it.each([
    [[v4('127.0.0.1')], 'refused: hooks.example resolves to 127.0.0.1, a loopback address'],
    [[v4('169.254.169.254')], 'refused: hooks.example resolves to 169.254.169.254, a link-local address'],
    [[v4('10.1.2.3')], 'refused: hooks.example resolves to 10.1.2.3, a private-network address'],
    [[v4('100.64.0.1')], 'refused: hooks.example resolves to 100.64.0.1, a carrier-grade NAT (shared) address'],
    [[v6('fd00::1')], 'refused: hooks.example resolves to fd00::1, a unique local address'],
    [[v6('::ffff:127.0.0.1')], 'refused: hooks.example resolves to ::ffff:127.0.0.1, a loopback address'],
    [[v4('0.0.0.0')], 'refused: hooks.example resolves to 0.0.0.0, an unspecified address'],
    [[v6('::')], 'refused: hooks.example resolves to ::, an unspecified address'],
  ])('refuses %j, saying which address and what it is', (addresses, message) => {
    expect(addressRefusal('hooks.example', addresses)).toBe(message);
  });

  it('refuses the name when any one of its addresses is refused, wherever it comes in the answer', () => {
    expect(addressRefusal('mixed.example', [v4('203.0.113.7'), v4('10.0.0.5')])).toBe('refused: mixed.example resolves to 10.0.0.5, a private-network address');
    expect(addressRefusal('mixed.example', [v6('::1'), v4('203.0.113.7')])).toBe('refused: mixed.example resolves to ::1, a loopback address');
  });

  it('refuses an answer that is not an IP address', () => {
    expect(addressRefusal('odd.example', [v4('not-an-ip')])).toBe('refused: odd.example resolves to "not-an-ip", not an IP address');
  });
});

describe('vettedLookup', () => {
  type Answer = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  const call = (resolve: Resolve, allow: boolean, host: string, options: LookupOptions) =>
    new Promise<Answer>((done) => vettedLookup(resolve, allow)(host, options, (err, address, family) => done({ err, address, family })));
  const answering =
    (...addresses: LookupAddress[]): Resolve =>
    async () =>
      addresses;

  it('answers every checked address when asked for all (happy eyeballs), and only the first otherwise', async () => {
    const resolve = answering(v6('2001:db8::7'), v4('203.0.113.7'));
    expect(await call(resolve, false, 'hooks.example', { all: true })).toEqual({ err: null, address: [v6('2001:db8::7'), v4('203.0.113.7')], family: undefined });
    expect(await call(resolve, false, 'hooks.example', {})).toEqual({ err: null, address: '2001:db8::7', family: 6 });
  });

  it('keeps to the family asked for, and passes the family and hints on to the resolver', async () => {
    const resolve = jest.fn(answering(v6('2001:db8::7'), v4('203.0.113.7')));
    expect(await call(resolve, false, 'hooks.example', { family: 4, hints: 32 })).toEqual({ err: null, address: '203.0.113.7', family: 4 });
    expect(resolve).toHaveBeenCalledWith('hooks.example', { family: 4, hints: 32 });
    expect(await call(resolve, false, 'hooks.example', { family: 6, all: true })).toMatchObject({ err: null, address: [v6('2001:db8::7')] });
  });

  it('resolves once per connection: the socket gets what was checked', async () => {
    const resolve = jest.fn(answering(v4('203.0.113.7')));
    await call(resolve, false, 'hooks.example', { all: true });
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('refuses with a RefusedAddressError naming the address when one is refused', async () => {
    const { err } = await call(answering(v4('203.0.113.7'), v4('127.0.0.1')), false, 'webhook.example', { all: true });
    expect(err).toBeInstanceOf(RefusedAddressError);
    expect(err?.message).toBe('refused: webhook.example resolves to 127.0.0.1, a loopback address');
    expect(err?.code).toBe('EREFUSEDADDRESS');
  });

  it('checks the addresses of the family not asked for too', async () => {
    const { err } = await call(answering(v6('::1'), v4('203.0.113.7')), false, 'webhook.example', { family: 4 });
    expect(err).toBeInstanceOf(RefusedAddressError);
  });

  it('with private hosts allowed, answers internal addresses', async () => {
    expect(await call(answering(v4('127.0.0.1')), true, 'webhook.example', {})).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  it('passes a resolver failure on as it came, and an empty answer as ENOTFOUND', async () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    expect((await call(() => Promise.reject(failure), false, 'nowhere.example', {})).err).toBe(failure);
    expect((await call(answering(), false, 'nowhere.example', {})).err?.code).toBe('ENOTFOUND');
    expect((await call(answering(v6('2001:db8::7')), false, 'v6only.example', { family: 4 })).err?.code).toBe('ENOTFOUND');
  });
});
