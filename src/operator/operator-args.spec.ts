import { parseDuration, parseOperatorArgs, USAGE, UsageError } from './operator-args';

const ID = '0190f2a4-0000-7000-8000-000000000000';

describe('parseOperatorArgs', () => {
  it.each([[[]], [['help']], [['--help']], [['-h']]])('reads %p as help', (argv) => {
    expect(parseOperatorArgs(argv)).toEqual({ name: 'help' });
  });

  it('joins the words of a game name', () => {
    expect(parseOperatorArgs(['game:create', ' Space', 'Pirates '])).toEqual({ name: 'game:create', gameName: 'Space Pirates' });
  });

  it('takes one id for each key command, in lowercase', () => {
    expect(parseOperatorArgs(['key:mint', ID])).toEqual({ name: 'key:mint', gameId: ID, options: {} });
    expect(parseOperatorArgs(['key:list', ID.toUpperCase()])).toEqual({ name: 'key:list', gameId: ID });
    expect(parseOperatorArgs(['key:revoke', ID])).toEqual({ name: 'key:revoke', keyId: ID });
  });

  it.each<[string, string[]]>([
    ['an unknown command', ['key:delete']],
    ['a missing name', ['game:create']],
    ['a name over 200 characters', ['game:create', 'x'.repeat(201)]],
    ['a missing id', ['key:revoke']],
    ['two ids', ['key:list', ID, ID]],
    ['an id that is not a UUID', ['key:mint', `${ID}0`]],
    ['a newline in the command', ['key:\nrevoke']],
  ])('refuses %s with one line naming the usage', (_case, argv) => {
    let err: unknown;
    try {
      parseOperatorArgs(argv);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).not.toContain('\n');
    expect((err as Error).message).toMatch(/; (usage|commands): /);
  });
});

/** The one line a bad command line is refused with. */
function refusal(argv: string[]): string {
  try {
    parseOperatorArgs(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
}

describe('key:mint options, as the admin route takes its body', () => {
  const MINT_USAGE = 'usage: key:mint <gameId> [--name <name>] [--scopes read|read,write] [--expires-in <n>s|m|h|d]';

  it('reads --scopes and --expires-in, before or after the id, with a space or =', () => {
    expect(parseOperatorArgs(['key:mint', ID, '--scopes', 'read', '--expires-in', '30d'])).toEqual({
      name: 'key:mint',
      gameId: ID,
      options: { scopes: ['read'], expiresIn: 30 * 86_400 },
    });
    expect(parseOperatorArgs(['key:mint', '--scopes=read, write', '--expires-in=12h', ID])).toEqual({
      name: 'key:mint',
      gameId: ID,
      options: { scopes: ['read', 'write'], expiresIn: 12 * 3600 },
    });
    expect(parseOperatorArgs(['key:mint', ID, '--expires-in', '60s']).name).toBe('key:mint');
    expect(parseOperatorArgs(['key:mint', ID, '--name', 'nightly export', '--scopes=read'])).toEqual({
      name: 'key:mint',
      gameId: ID,
      options: { name: 'nightly export', scopes: ['read'] },
    });
    expect(parseOperatorArgs(['key:mint', `--name=${'é'.repeat(64)}`, ID]).name).toBe('key:mint');
    expect(parseOperatorArgs(['key:mint', ID, '--expires-in', '3650d']).name).toBe('key:mint');
  });

  it.each<[string, string[], string]>([
    ['an unknown option', [ID, '--nmae', 'ci'], 'unknown option "--nmae"'],
    ['an unknown option with =', [ID, '--label=ci'], 'unknown option "--label"'],
    ['a missing value at the end', [ID, '--scopes'], '--scopes needs a value: --scopes read|read,write'],
    ['an option where the value belongs', ['--expires-in', '--scopes', 'read', ID], '--expires-in needs a value: --expires-in <n>s|m|h|d'],
    ['an empty value', [ID, '--scopes='], '--scopes needs a value'],
    ['an option given twice', [ID, '--scopes', 'read', '--scopes', 'read,write'], '--scopes is given twice'],
    ['a duration without a unit', [ID, '--expires-in', '30'], '--expires-in "30" is not a duration: a whole number of s, m, h or d (90d, 12h)'],
    ['a duration in weeks', [ID, '--expires-in', '2w'], '--expires-in "2w" is not a duration'],
    ['a negative duration', [ID, '--expires-in=-5d'], '--expires-in "-5d" is not a duration'],
    ['a duration under a minute', [ID, '--expires-in', '59s'], '--expires-in "59s": must be an integer number of seconds from 60 to 315360000 (10 years)'],
    ['a duration over ten years', [ID, '--expires-in', '3651d'], '--expires-in "3651d": must be an integer number of seconds from 60 to 315360000'],
    ['an unknown scope', [ID, '--scopes', 'admin'], '--scopes "admin": must be ["read"] or ["read", "write"]: distinct scopes, read always among them'],
    ['write without read', [ID, '--scopes', 'write'], '--scopes "write": must be ["read"] or ["read", "write"]'],
    ['a scope twice', [ID, '--scopes', 'read,read'], '--scopes "read,read": must be'],
    ['an empty scope', [ID, '--scopes', 'read,'], '--scopes "read,": must be'],
    ['an empty name', [ID, '--name='], '--name needs a value: --name <name>'],
    ['a blank name', [ID, '--name', '   '], '--name "   ": must be a string of 1-64 characters, not blank, without control characters'],
    ['a name over 64 characters', [ID, '--name', 'x'.repeat(65)], `--name "${'x'.repeat(65)}": must be a string of 1-64 characters`],
    ['a name with a newline', [ID, '--name', 'two\nlines'], '--name "two\\nlines": must be a string of 1-64 characters'],
  ])('refuses %s in one line naming the option', (_case, args, problem) => {
    const message = refusal(['key:mint', ...args]);
    expect(message.startsWith(problem)).toBe(true);
    expect(message.endsWith(`; ${MINT_USAGE}`)).toBe(true);
  });

  it('checks the id too: a missing one, or two', () => {
    expect(refusal(['key:mint', '--scopes', 'read'])).toBe(`key:mint takes one game id; ${MINT_USAGE}`);
    expect(refusal(['key:mint', ID, ID, '--scopes', 'read'])).toBe(`key:mint takes one game id; ${MINT_USAGE}`);
  });
});

describe('options of the other commands', () => {
  it('erasures:export takes --out beside its since', () => {
    expect(parseOperatorArgs(['erasures:export', '--out', 'ledger.json'])).toEqual({ name: 'erasures:export', out: 'ledger.json' });
    expect(parseOperatorArgs(['erasures:export', '2026-11-01T00:00:00Z', '--out=recent.json'])).toEqual({
      name: 'erasures:export',
      since: new Date('2026-11-01T00:00:00Z'),
      out: 'recent.json',
    });
    expect(parseOperatorArgs(['erasures:export'])).toEqual({ name: 'erasures:export' });
  });

  it.each<[string[], string]>([
    [['erasures:export', '--out'], '--out needs a value: --out <file>; usage: erasures:export [<since>] [--out <file>]'],
    [['erasures:export', '--out', 'a.json', '--out', 'b.json'], '--out is given twice; usage: erasures:export'],
    [['erasures:export', '--since', '2026-11-01T00:00:00Z'], 'unknown option "--since"; usage: erasures:export'],
    [['erasures:apply', 'ledger.json', '--force'], 'unknown option "--force"; usage: erasures:apply <file>'],
    [['key:list', ID, '--all'], 'unknown option "--all"; usage: key:list <gameId>'],
    [['key:revoke', '--id', ID], 'unknown option "--id"; usage: key:revoke <keyId>'],
    [['game:create', 'Moonfall', '--scopes', 'read'], 'unknown option "--scopes"; usage: game:create "<name>"'],
  ])('%j is refused in one line naming the option', (argv, start) => {
    expect(refusal(argv).startsWith(start)).toBe(true);
  });
});

describe('ledger export and ledger apply', () => {
  it('take a since and --out, and one file, as the erasure commands do', () => {
    expect(parseOperatorArgs(['ledger', 'export', '--out', 'ledger.json'])).toEqual({ name: 'ledger export', out: 'ledger.json' });
    expect(parseOperatorArgs(['ledger', 'export', '2026-11-01T00:00:00Z'])).toEqual({ name: 'ledger export', since: new Date('2026-11-01T00:00:00Z') });
    expect(parseOperatorArgs(['ledger', 'apply', 'ledger.json'])).toEqual({ name: 'ledger apply', file: 'ledger.json' });
  });

  it.each<[string[], string]>([
    [['ledger'], 'ledger needs export or apply; usage: ledger export [<since>] [--out <file>] | ledger apply <file>'],
    [['ledger', 'import', 'x.json'], '"import" is not export or apply; usage: ledger export [<since>] [--out <file>] | ledger apply <file>'],
    [['ledger', 'export', 'yesterday'], '"yesterday" is not an ISO 8601 timestamp with a time zone; usage: ledger export [<since>] [--out <file>]'],
    [['ledger', 'export', '--out'], '--out needs a value: --out <file>; usage: ledger export [<since>] [--out <file>]'],
    [['ledger', 'apply'], 'ledger apply takes one file, as ledger export wrote it; usage: ledger apply <file>'],
    [['ledger', 'apply', 'a.json', '--out', 'b.json'], 'unknown option "--out"; usage: ledger apply <file>'],
  ])('%j is refused in one line', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });
});

describe('parseDuration', () => {
  it.each<[string, number | undefined]>([
    ['90d', 7_776_000],
    ['12h', 43_200],
    ['30m', 1_800],
    ['3600s', 3_600],
    ['0d', 0],
    ['1.5d', undefined],
    ['d', undefined],
    ['10 d', undefined],
    ['10D', undefined],
    ['', undefined],
  ])('reads %p as %p seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
});

describe('USAGE', () => {
  it('names every command, its options and the three ways to run it', () => {
    for (const text of [
      'game:create "<name>"',
      'key:mint <gameId>',
      'key:list <gameId>',
      'key:revoke <keyId>',
      'ledger export [<since>]',
      'ledger apply <file>',
      'erasures:apply <file>',
      'help',
      '--name <name>',
      '--scopes read|read,write',
      '--expires-in <n>s|m|h|d',
      '--out <file>',
    ]) {
      expect(USAGE).toContain(text);
    }
    expect(USAGE).toMatch(/^Usage: node dist\/src\/cli\.js <command> .*npx guildhall .*npm run svc -- /);
    expect(USAGE).toContain('operator audit');
  });
});

describe('migrate', () => {
  it('takes status, up and down --to <name>', () => {
    expect(parseOperatorArgs(['migrate', 'status'])).toEqual({ name: 'migrate:status' });
    expect(parseOperatorArgs(['migrate', 'up'])).toEqual({ name: 'migrate:up' });
    expect(parseOperatorArgs(['migrate', 'down', '--to', 'Erasure1765100000000'])).toEqual({ name: 'migrate:down', to: 'Erasure1765100000000' });
  });

  it.each([[['migrate']], [['migrate', 'sideways']], [['migrate', 'down']], [['migrate', 'down', 'X']], [['migrate', 'up', 'now']]])('refuses %j in one line', (argv) => {
    expect(() => parseOperatorArgs(argv)).toThrow(/usage: migrate status \| up \| down --to <name>$/);
  });
});
