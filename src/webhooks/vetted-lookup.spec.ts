import type { LookupAddress, LookupOptions } from 'node:dns';
import type { HostAddressSet } from './address-class';
import { addressRefusal, RefusedAddressError, vettedLookup, type Resolve } from './vetted-lookup';

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });
const NONE: HostAddressSet = new Set();
/** A public address standing in for this server's own. */
const MINE: HostAddressSet = new Set(['93.184.215.14']);

describe('addressRefusal', () => {
  it('passes a name whose every address may be reached', () => {
    expect(addressRefusal('hooks.example', [v4('93.184.215.14'), v6('2606:4700:4700::1111')], NONE)).toBeNull();
    expect(addressRefusal('hooks.example', [], NONE)).toBeNull();
  });

  it.each([
    [[v4('127.0.0.1')], 'refused: hooks.example resolves to a loopback address'],
    [[v4('169.254.169.254')], 'refused: hooks.example resolves to a link-local address'],
    [[v4('10.1.2.3')], 'refused: hooks.example resolves to a private-network address'],
    [[v4('100.64.0.1')], 'refused: hooks.example resolves to a carrier-grade NAT (shared) address'],
    [[v4('198.18.7.7')], 'refused: hooks.example resolves to a benchmarking address'],
    [[v4('203.0.113.7')], 'refused: hooks.example resolves to a documentation address'],
    [[v4('240.1.2.3')], 'refused: hooks.example resolves to a reserved address'],
    [[v6('fd00::1')], 'refused: hooks.example resolves to a unique local address'],
    [[v6('fec0::1')], 'refused: hooks.example resolves to a site-local address'],
    [[v6('::ffff:127.0.0.1')], 'refused: hooks.example resolves to a loopback address'],
    [[v6('2002:a00:1::1')], 'refused: hooks.example resolves to a private-network address'],
    [[v6('fe80::1%eth0')], 'refused: hooks.example resolves to a link-local address'],
    [[v4('0.0.0.0')], 'refused: hooks.example resolves to an unspecified address'],
    [[v6('::')], 'refused: hooks.example resolves to an unspecified address'],
    [[v4('93.184.215.14')], 'refused: hooks.example resolves to an address of this server'],
    [[v6('::ffff:93.184.215.14')], 'refused: hooks.example resolves to an address of this server'],
  ])('refuses %j, naming what it is and never the address', (addresses, message) => {
    expect(addressRefusal('hooks.example', addresses, MINE)).toBe(message);
    const { address } = addresses[0];
    expect(message).not.toContain(address.replace(/%.*/, ''));
  });

  it('refuses the name when any one of its addresses is refused, wherever it comes in the answer', () => {
    expect(addressRefusal('mixed.example', [v4('1.1.1.1'), v4('10.0.0.5')], NONE)).toBe('refused: mixed.example resolves to a private-network address');
    expect(addressRefusal('mixed.example', [v6('::1'), v4('1.1.1.1')], NONE)).toBe('refused: mixed.example resolves to a loopback address');
    expect(addressRefusal('mixed.example', [v4('1.1.1.1'), v4('93.184.215.14')], MINE)).toBe('refused: mixed.example resolves to an address of this server');
  });

  it('refuses an answer that is not an IP address, without repeating it', () => {
    expect(addressRefusal('odd.example', [v4('not-an-ip')], NONE)).toBe('refused: odd.example resolves to something that is not an IP address');
  });
});

describe('vettedLookup', () => {
  type Answer = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  const call = (resolve: Resolve, allow: boolean, host: string, options: LookupOptions, mine: () => HostAddressSet = () => NONE) =>
    new Promise<Answer>((done) => vettedLookup(resolve, allow, mine)(host, options, (err, address, family) => done({ err, address, family })));
  const answering =
    (...addresses: LookupAddress[]): Resolve =>
    async () =>
      addresses;

  it('answers every checked address when asked for all (happy eyeballs), and only the first otherwise', async () => {
    const resolve = answering(v6('2606:4700::7'), v4('93.184.216.34'));
    expect(await call(resolve, false, 'hooks.example', { all: true })).toEqual({ err: null, address: [v6('2606:4700::7'), v4('93.184.216.34')], family: undefined });
    expect(await call(resolve, false, 'hooks.example', {})).toEqual({ err: null, address: '2606:4700::7', family: 6 });
  });

  it('keeps to the family asked for, and passes the family and hints on to the resolver', async () => {
    const resolve = jest.fn(answering(v6('2606:4700::7'), v4('93.184.216.34')));
    expect(await call(resolve, false, 'hooks.example', { family: 4, hints: 32 })).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(resolve).toHaveBeenCalledWith('hooks.example', { family: 4, hints: 32 });
    expect(await call(resolve, false, 'hooks.example', { family: 6, all: true })).toMatchObject({ err: null, address: [v6('2606:4700::7')] });
  });

  it('resolves once per connection: the socket gets what was checked', async () => {
    const resolve = jest.fn(answering(v4('93.184.216.34')));
    await call(resolve, false, 'hooks.example', { all: true });
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('refuses with a RefusedAddressError naming the class, not the address, when one is refused', async () => {
    const { err } = await call(answering(v4('93.184.216.34'), v4('127.0.0.1')), false, 'webhook.example', { all: true });
    expect(err).toBeInstanceOf(RefusedAddressError);
    expect(err?.message).toBe('refused: webhook.example resolves to a loopback address');
    expect(err?.code).toBe('EREFUSEDADDRESS');
  });

  it("reads this server's addresses at each lookup: an address the server has gained since is refused", async () => {
    let mine: HostAddressSet = NONE;
    const resolve = answering(v4('93.184.215.14'));
    expect((await call(resolve, false, 'webhook.example', {}, () => mine)).err).toBeNull();
    mine = MINE;
    const { err } = await call(resolve, false, 'webhook.example', {}, () => mine);
    expect(err?.message).toBe('refused: webhook.example resolves to an address of this server');
  });

  it('checks the addresses of the family not asked for too', async () => {
    const { err } = await call(answering(v6('::1'), v4('93.184.216.34')), false, 'webhook.example', { family: 4 });
    expect(err).toBeInstanceOf(RefusedAddressError);
  });

  it('with private hosts allowed, answers internal addresses', async () => {
    expect(await call(answering(v4('127.0.0.1')), true, 'webhook.example', {})).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  it('passes a resolver failure on as it came, and an empty answer as ENOTFOUND', async () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    expect((await call(() => Promise.reject(failure), false, 'nowhere.example', {})).err).toBe(failure);
    expect((await call(answering(), false, 'nowhere.example', {})).err?.code).toBe('ENOTFOUND');
    expect((await call(answering(v6('2606:4700::7')), false, 'v6only.example', { family: 4 })).err?.code).toBe('ENOTFOUND');
  });
});
