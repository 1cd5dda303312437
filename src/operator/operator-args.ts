import { validateSync } from 'class-validator';
import type { ApiKeyScope } from '../common/auth/api-key-scopes';
import { isUuid } from '../common/ids';
import { isIsoTimestamp } from '../common/validation/is-iso-timestamp';
import { describeValidationErrors } from '../common/validation/validation.pipe';
import { MintApiKeyDto } from '../games/dto/api-key.dto';
import type { MigrateCommand } from './migrate-commands';

interface OptionSpec {
  value: string;
  about: string;
}

interface CommandSpec {
  args: string;
  about: string;
  options?: Readonly<Record<string, OptionSpec>>;
}

const OUT: Readonly<Record<string, OptionSpec>> = {
  '--out': { value: '<file>', about: 'write it to a new file, readable by its owner only (mode 0600); never overwrites one' },
};

/**
 * Every command, what it takes and what it does: the help text and the one-line errors are built
 * from it. A name of two words is a command and its verb (`ledger export`).
 */
const COMMANDS = {
  'game:create': { args: '"<name>"', about: 'create a game together with its first API key' },
  'key:mint': {
    args: '<gameId>',
    about: 'mint another API key for a game: prints the key (shown only then) and its id',
    options: {
      '--name': { value: '<name>', about: 'a label to know the key by in key:list, 1-64 characters (default: none)' },
      '--scopes': { value: 'read|read,write', about: 'what the key may do: a read key is refused every change (default read,write)' },
      '--expires-in': { value: '<n>s|m|h|d', about: 'how long the key works, 60s to 3650d (default: it never expires)' },
    },
  },
  'key:list': {
    args: '<gameId>',
    about: "list a game's API keys: id, prefix, name, scopes, created, last used (to the minute), expiry, revoked (never the secret)",
  },
  'key:revoke': { args: '<keyId>', about: 'revoke an API key, at once on every running instance' },
  'ledger export': {
    args: '[<since>]',
    about: 'print the ledger of removed access (erasures, key revocations, operator deletions, role changes) as JSON: keep it outside the backups',
    options: OUT,
  },
  'ledger apply': { args: '<file>', about: 'after a restore, before traffic: remove again every access a ledger file records' },
  'erasures:export': { args: '[<since>]', about: 'the erasures of the ledger alone, as JSON (the file erasures:apply takes)', options: OUT },
  'erasures:apply': { args: '<file>', about: 'after a restore, before traffic: erase again every user an erasures:export file names' },
  migrate: {
    args: 'status | up | down --to <name>',
    about: "the schema: list this build's migrations and the database's; apply the pending ones; revert those after <name>",
  },
  help: { args: '', about: 'this text' },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export type OperatorCommand =
  | { name: 'help' }
  | { name: 'game:create'; gameName: string }
  | { name: 'key:mint'; gameId: string; options: MintApiKeyDto }
  | { name: 'key:list'; gameId: string }
  | { name: 'key:revoke'; keyId: string }
  | LedgerCommand
  | MigrateCommand;

/** The ledger's export and apply: of the whole ledger, or of its erasures alone (the older commands). */
export type LedgerCommand =
  | { name: 'ledger export' | 'erasures:export'; since?: Date; out?: string }
  | { name: 'ledger apply' | 'erasures:apply'; file: string };

const optionsOf = (name: CommandName): Readonly<Record<string, OptionSpec>> => (COMMANDS[name] as CommandSpec).options ?? {};

export const USAGE = [
  'Usage: node dist/src/cli.js <command>   (or: npx guildhall <command>, npm run svc -- <command>)',
  '',
  'Commands:',
  ...(Object.keys(COMMANDS) as CommandName[]).flatMap((name) => [
    `  ${`${name} ${COMMANDS[name].args}`.padEnd(26)} ${COMMANDS[name].about}`,
    ...Object.entries(optionsOf(name)).map(([option, o]) => `    ${`${option} ${o.value}`.padEnd(24)} ${o.about}`),
  ]),
  '',
  'The database is DATABASE_URL, or the embedded one of a running `npm start`.',
  'Every change (game:create, key:mint, key:revoke, ledger apply, erasures:apply) is recorded in the',
  'operator audit as `cli`, with the OS user and host, in the transaction of the change.',
  'The command runs the built code and never builds: run `npm run build` once after installing or updating.',
].join('\n');

/** A bad command line. Its message is the one line the operator sees: no stack, no error envelope. */
export class UsageError extends Error {}

/** How a command is called, its options included. */
function synopsis(name: CommandName): string {
  const options = Object.entries(optionsOf(name)).map(([option, o]) => `[${option} ${o.value}]`);
  return [name, COMMANDS[name].args, ...options].filter(Boolean).join(' ');
}

/** The problem, then how the command is called: one line. */
export function usageError(name: CommandName, problem: string): UsageError {
  return new UsageError(`${problem}; usage: ${synopsis(name)}`);
}

/** Parses the arguments before any database work, so a typo never waits on a connection. */
export function parseOperatorArgs(argv: readonly string[]): OperatorCommand {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { name: 'help' };
  switch (name) {
    case 'game:create': {
      const gameName = readOptions(name, args).words.join(' ').trim();
      if (!gameName || gameName.length > 200) throw usageError(name, 'game:create needs a name of 1-200 characters');
      return { name, gameName };
    }
    case 'key:mint': {
      const { words, options } = readOptions(name, args);
      return { name, gameId: oneId(name, words, 'game id'), options: mintOptions(options) };
    }
    case 'key:list':
      return { name, gameId: oneId(name, readOptions(name, args).words, 'game id') };
    case 'key:revoke':
      return { name, keyId: oneId(name, readOptions(name, args).words, 'API key id') };
    case 'ledger':
      return ledgerCommand(args);
    case 'erasures:export':
      return exportCommand(name, args);
    case 'erasures:apply':
      return applyCommand(name, args);
    case 'migrate':
      return migrateCommand(args);
    default:
      // JSON quoting keeps a pasted newline or control character from breaking the one line.
      throw new UsageError(`unknown command ${JSON.stringify(name)}; commands: ${[...new Set(Object.keys(COMMANDS).map((c) => c.split(' ')[0]))].join(', ')}`);
  }
}

/**
 * The words of a command and its options, `--option value` or `--option=value`, each at most once.
 * Any argument starting with `--` is an option, so a misspelt one is refused rather than taken as a word.
 */
function readOptions(name: CommandName, args: readonly string[]): { words: string[]; options: Map<string, string> } {
  const known = optionsOf(name);
  const words: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const option = eq < 0 ? arg : arg.slice(0, eq);
    if (!Object.hasOwn(known, option)) throw usageError(name, `unknown option ${JSON.stringify(option)}`);
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (!value || (eq < 0 && value.startsWith('--'))) throw usageError(name, `${option} needs a value: ${option} ${known[option].value}`);
    if (options.has(option)) throw usageError(name, `${option} is given twice`);
    options.set(option, value);
  }
  return { words, options };
}

const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `90d`, `12h`, `30m` or `3600s` in seconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)([smhd])$/.exec(text);
  return m ? Number(m[1]) * SECONDS_PER_UNIT[m[2] as keyof typeof SECONDS_PER_UNIT] : undefined;
}

const MINT_OPTION: Record<keyof MintApiKeyDto, string> = { name: '--name', scopes: '--scopes', expiresIn: '--expires-in' };

/** The options of `key:mint` as the body of the admin route's mint, held to that body's own rules. */
function mintOptions(options: ReadonlyMap<string, string>): MintApiKeyDto {
  const body = new MintApiKeyDto();
  const name = options.get(MINT_OPTION.name);
  if (name !== undefined) body.name = name;
  const scopes = options.get(MINT_OPTION.scopes);
  if (scopes !== undefined) body.scopes = scopes.split(',').map((s) => s.trim()) as ApiKeyScope[];
  const lifetime = options.get(MINT_OPTION.expiresIn);
  if (lifetime !== undefined) {
    body.expiresIn = parseDuration(lifetime);
    if (body.expiresIn === undefined) {
      throw usageError('key:mint', `--expires-in ${JSON.stringify(lifetime)} is not a duration: a whole number of s, m, h or d (90d, 12h)`);
    }
  }
  const [problem] = validateSync(body, { stopAtFirstError: true, forbidUnknownValues: false });
  if (problem) {
    const option = MINT_OPTION[problem.property as keyof MintApiKeyDto];
    const [reason] = describeValidationErrors([problem]);
    throw usageError('key:mint', `${option} ${JSON.stringify(options.get(option))}: ${reason.replace(`${problem.property} `, '')}`);
  }
  return body;
}

function ledgerCommand(args: readonly string[]): LedgerCommand {
  const [verb, ...rest] = args;
  if (verb === 'export') return exportCommand('ledger export', rest);
  if (verb === 'apply') return applyCommand('ledger apply', rest);
  throw new UsageError(
    `${verb === undefined ? 'ledger needs' : `${JSON.stringify(verb)} is not`} export or apply; usage: ${synopsis('ledger export')} | ${synopsis('ledger apply')}`,
  );
}

function exportCommand(name: 'ledger export' | 'erasures:export', args: readonly string[]): LedgerCommand {
  const { words, options } = readOptions(name, args);
  if (words.length > 1) throw usageError(name, `${name} takes at most one ISO 8601 timestamp`);
  const out = options.get('--out');
  return { name, ...(words.length ? { since: since(name, words[0]) } : {}), ...(out === undefined ? {} : { out }) };
}

function applyCommand(name: 'ledger apply' | 'erasures:apply', args: readonly string[]): LedgerCommand {
  const { words } = readOptions(name, args);
  const exporter = name === 'ledger apply' ? 'ledger export' : 'erasures:export';
  if (words.length !== 1 || !words[0]) throw usageError(name, `${name} takes one file, as ${exporter} wrote it`);
  return { name, file: words[0] };
}

function since(name: CommandName, text: string): Date {
  const at = new Date(text);
  if (!isIsoTimestamp(text) || Number.isNaN(at.getTime())) throw usageError(name, `${JSON.stringify(text)} is not an ISO 8601 timestamp with a time zone`);
  return at;
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
