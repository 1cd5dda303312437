import { isUuid } from '../common/ids';
import { isIsoTimestamp } from '../common/validation/is-iso-timestamp';
import type { MigrateCommand } from './migrate-commands';

/** Every command, what it takes and what it does: the help text and the one-line errors are built from it. */
const COMMANDS = {
  'game:create': { args: '"<name>"', about: 'create a game together with its first API key' },
  'key:mint': { args: '<gameId>', about: 'mint another API key for a game' },
  'key:list': { args: '<gameId>', about: "list a game's API keys: id, prefix, created, revoked (never the secret)" },
  'key:revoke': { args: '<keyId>', about: 'revoke an API key, at once on every running instance' },
  'erasures:export': { args: '[<since>]', about: 'print the erasure ledger as JSON, oldest first: keep it outside the backups' },
  'erasures:apply': { args: '<file>', about: 'after a restore, before traffic: erase again every user a ledger file names' },
  migrate: {
    args: 'status | up | down --to <name>',
    about: "the schema: list this build's migrations and the database's; apply the pending ones; revert those after <name>",
  },
  help: { args: '', about: 'this text' },
} as const;

type CommandName = keyof typeof COMMANDS;

export type OperatorCommand =
  | { name: 'help' }
  | { name: 'game:create'; gameName: string }
  | { name: 'key:mint' | 'key:list'; gameId: string }
  | { name: 'key:revoke'; keyId: string }
  | { name: 'erasures:export'; since?: Date }
  | { name: 'erasures:apply'; file: string }
  | MigrateCommand;

export const USAGE = [
  'Usage: node dist/src/cli.js <command>   (or: npx guildhall <command>, npm run svc -- <command>)',
  '',
  'Commands:',
  ...Object.entries(COMMANDS).map(([name, c]) => `  ${`${name} ${c.args}`.padEnd(26)} ${c.about}`),
  '',
  'The database is DATABASE_URL, or the embedded one of a running `npm start`.',
  'The command runs the built code and never builds: run `npm run build` once after installing or updating.',
].join('\n');

/** A bad command line. Its message is the one line the operator sees: no stack, no error envelope. */
export class UsageError extends Error {}

/** The problem, then how the command is called: one line. */
export function usageError(name: CommandName, problem: string): UsageError {
  return new UsageError(`${problem}; usage: ${`${name} ${COMMANDS[name].args}`.trim()}`);
}

/** Parses the arguments before any database work, so a typo never waits on a connection. */
export function parseOperatorArgs(argv: readonly string[]): OperatorCommand {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { name: 'help' };
  switch (name) {
    case 'game:create': {
      const gameName = args.join(' ').trim();
      if (!gameName || gameName.length > 200) throw usageError(name, 'game:create needs a name of 1-200 characters');
      return { name, gameName };
    }
    case 'key:mint':
    case 'key:list':
      return { name, gameId: oneId(name, args, 'game id') };
    case 'key:revoke':
      return { name, keyId: oneId(name, args, 'API key id') };
    case 'erasures:export': {
      if (args.length > 1) throw usageError(name, 'erasures:export takes at most one ISO 8601 timestamp');
      if (args.length === 0) return { name };
      const since = new Date(args[0]);
      if (!isIsoTimestamp(args[0]) || Number.isNaN(since.getTime())) throw usageError(name, `${JSON.stringify(args[0])} is not an ISO 8601 timestamp with a time zone`);
      return { name, since };
    }
    case 'erasures:apply':
      if (args.length !== 1 || !args[0]) throw usageError(name, 'erasures:apply takes one file, as erasures:export wrote it');
      return { name, file: args[0] };
    case 'migrate':
      return migrateCommand(args);
    default:
      // JSON quoting keeps a pasted newline or control character from breaking the one line.
      throw new UsageError(`unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`);
  }
}

function migrateCommand(args: readonly string[]): MigrateCommand {
  const [verb, ...rest] = args;
  if ((verb === 'status' || verb === 'up') && rest.length === 0) return { name: `migrate:${verb}` };
  if (verb === 'down') {
    if (rest.length === 2 && rest[0] === '--to' && rest[1]) return { name: 'migrate:down', to: rest[1] };
    throw usageError('migrate', 'migrate down needs --to <name>: the last migration to keep (`migrate status` lists them)');
  }
  throw usageError('migrate', `${verb === undefined ? 'migrate needs' : `${JSON.stringify(verb)} is not`} status, up or down --to <name>`);
}

function oneId(name: CommandName, args: readonly string[], what: string): string {
  if (args.length !== 1) throw usageError(name, `${name} takes one ${what}`);
  // Postgres reads a UUID in either case; the services look up the lowercase form.
  const id = args[0].toLowerCase();
  if (!isUuid(id)) throw usageError(name, `${JSON.stringify(args[0])} is not a valid ${what} (a UUID)`);
  return id;
}
