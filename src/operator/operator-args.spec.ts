import { parseOperatorArgs, USAGE, UsageError } from './operator-args';

const ID = '0190f2a4-0000-7000-8000-000000000000';

describe('parseOperatorArgs', () => {
  it.each([[[]], [['help']], [['--help']], [['-h']]])('reads %p as help', (argv) => {
    expect(parseOperatorArgs(argv)).toEqual({ name: 'help' });
  });

  it('joins the words of a game name', () => {
    expect(parseOperatorArgs(['game:create', ' Space', 'Pirates '])).toEqual({ name: 'game:create', gameName: 'Space Pirates' });
  });

  it('takes one id for each key command, in lowercase', () => {
    expect(parseOperatorArgs(['key:mint', ID])).toEqual({ name: 'key:mint', gameId: ID });
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

describe('USAGE', () => {
  it('names every command and the three ways to run it', () => {
    for (const text of ['game:create "<name>"', 'key:mint <gameId>', 'key:list <gameId>', 'key:revoke <keyId>', 'help']) {
      expect(USAGE).toContain(text);
    }
    expect(USAGE).toMatch(/^Usage: node dist\/src\/cli\.js <command> .*npx guildhall .*npm run svc -- /);
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
