import { ApiError } from '../common/errors/api-error';

/**
 * The per-game config (SPEC §2 Game config, §8 Friends config ranges). A game stores only what
 * its operator set; defaults are applied at read time, so changing a default reaches every game
 * that never set the key.
 */

export const FRIENDS_SCOPES = ['per-game', 'network'] as const;
export type FriendsScope = (typeof FRIENDS_SCOPES)[number];

export const LIST_VISIBILITIES = ['private', 'friends-only', 'public'] as const;
export type ListVisibility = (typeof LIST_VISIBILITIES)[number];

export interface GameConfig {
  friends: {
    enabled: boolean;
    scope: FriendsScope;
    requestsRequired: boolean;
    maxFriends: number;
    maxPendingRequests: number;
    tags: { enabled: boolean; maxPerUser: number };
    discovery: { enabled: boolean; minMutuals: number };
    visibility: { allowed: ListVisibility[]; default: ListVisibility };
  };
  blocks: { enabled: boolean };
  /** EXTENSIONS X5: the kinds of group a player may be an active member of only once. */
  groups: { exclusiveKinds: string[] };
  /** EXTENSIONS X10. */
  moderation: {
    names: { blocked: string[]; reserved: string[] };
    timeoutDeniedPermissions: string[];
    /** The distinct reporters with open reports on a group at which search hides it (null: never). */
    hideGroupAtReporters: number | null;
  };
}

/** A stored (partial) config: only the keys an operator set. */
export type StoredConfig = Record<string, unknown>;

type Check = (v: unknown) => string | null;

interface Leaf {
  leaf: true;
  default: unknown;
  /** The reason a value is invalid, phrased after "<path> must ...", or null when valid. */
  check: Check;
}
interface Branch {
  [key: string]: Node;
}
type Node = Leaf | Branch;

const isLeaf = (n: Node): n is Leaf => (n as Leaf).leaf === true;

const bool = (def: boolean): Leaf => ({
  leaf: true,
  default: def,
  check: (v) => (typeof v === 'boolean' ? null : 'must be a boolean'),
});

const int = (def: number, min: number, max: number): Leaf => ({
  leaf: true,
  default: def,
  check: (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? null : `must be an integer from ${min} to ${max}`,
});

const oneOf = <T extends string>(values: readonly T[], def: T): Leaf => ({
  leaf: true,
  default: def,
  check: (v) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? null : `must be one of ${values.join(', ')}`),
});

const subsetOf = <T extends string>(values: readonly T[], def: T[]): Leaf => ({
  leaf: true,
  default: def,
  check: (v) =>
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((x) => typeof x === 'string' && (values as readonly string[]).includes(x)) &&
    new Set(v).size === v.length
      ? null
      : `must be a non-empty array of distinct values from ${values.join(', ')}`,
});

/** An integer in range, or null (the default): a threshold that is off until set. */
const intOrNull = (min: number, max: number): Leaf => ({
  leaf: true,
  default: null,
  check: (v) => (v === null || (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) ? null : `must be an integer from ${min} to ${max}, or null`),
});

/** Distinct strings of 1 to `maxLength` characters, at most `maxItems` of them. */
const stringList = (maxItems: number, maxLength: number): Leaf => ({
  leaf: true,
  default: [],
  check: (v) =>
    Array.isArray(v) &&
    v.length <= maxItems &&
    v.every((x) => typeof x === 'string' && x.length >= 1 && x.length <= maxLength) &&
    new Set(v).size === v.length
      ? null
      : `must be an array of at most ${maxItems} distinct strings of 1-${maxLength} characters`,
});

/** Every key, its default and its rule (SPEC §2 table, ranges of §8; EXTENSIONS X5 for groups, X10 for moderation). */
const SCHEMA: Branch = {
  friends: {
    enabled: bool(true),
    scope: oneOf(FRIENDS_SCOPES, 'per-game'),
    requestsRequired: bool(true),
    maxFriends: int(1000, 1, 100_000),
    maxPendingRequests: int(100, 1, 10_000),
    tags: { enabled: bool(true), maxPerUser: int(20, 1, 1000) },
    discovery: { enabled: bool(true), minMutuals: int(2, 1, 50) },
    visibility: {
      allowed: subsetOf(LIST_VISIBILITIES, ['private', 'friends-only']),
      default: oneOf(LIST_VISIBILITIES, 'private'),
    },
  },
  blocks: { enabled: bool(true) },
  // A group's kind is 1-64 characters.
  groups: { exclusiveKinds: stringList(20, 64) },
  moderation: {
    names: { blocked: stringList(1000, 64), reserved: stringList(1000, 64) },
    // A permission key is 1-128 characters.
    timeoutDeniedPermissions: stringList(100, 128),
    hideGroupAtReporters: intOrNull(1, 1000),
  },
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** The full config: each stored value where set, else its default. */
export function resolveConfig(stored: StoredConfig): GameConfig {
  return resolveBranch(SCHEMA, stored) as unknown as GameConfig;
}

function resolveBranch(schema: Branch, stored: unknown): Record<string, unknown> {
  const src = isPlainObject(stored) ? stored : {};
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(schema)) {
    out[key] = isLeaf(node) ? clone(src[key] !== undefined ? src[key] : node.default) : resolveBranch(node, src[key]);
  }
  return out;
}

/** The schema's node for `key`: own keys only, so `constructor` or `toString` never name one. */
const nodeAt = (schema: Branch, key: string): Node | undefined => (Object.hasOwn(schema, key) ? schema[key] : undefined);

const NAMED_AT_MOST = 10;
const NAME_MAX = 64;

/**
 * 400 naming the unknown keys of `where` (at most ten, each cut to 64 characters, as the client
 * chose their number and length) and the keys known at their levels.
 */
export function unknownKeysError(where: string, unknown: readonly string[], known: readonly string[]): ApiError {
  const named = unknown.slice(0, NAMED_AT_MOST).map((k) => (k.length > NAME_MAX ? `${k.slice(0, NAME_MAX)}…` : k));
  const more = unknown.length > NAMED_AT_MOST ? ` and ${unknown.length - NAMED_AT_MOST} more` : '';
  return ApiError.badRequest(`${where} has unknown keys: ${named.join(', ')}${more}; known keys are ${known.join(', ')}`);
}

/**
 * Refuses a config patch holding any key the config does not have, at any level, naming them all
 * by path: a typo must not be dropped with a 200 that looks as if the setting was applied.
 */
export function checkConfigKeys(patch: Record<string, unknown>): void {
  const unknown: string[] = [];
  const known = new Set<string>();
  collectUnknownKeys(SCHEMA, patch, '', unknown, known);
  if (unknown.length) throw unknownKeysError('config', unknown, [...known]);
}

function collectUnknownKeys(schema: Branch, patch: Record<string, unknown>, prefix: string, unknown: string[], known: Set<string>): void {
  // Object.keys: JSON.parse makes `__proto__` an own key, and it must be seen to be refused.
  for (const key of Object.keys(patch)) {
    const node = nodeAt(schema, key);
    if (!node) {
      unknown.push(`${prefix}${key}`);
      for (const k of Object.keys(schema)) known.add(`${prefix}${k}`);
    } else if (!isLeaf(node) && isPlainObject(patch[key])) {
      collectUnknownKeys(node, patch[key], `${prefix}${key}.`, unknown, known);
    }
  }
}

/**
 * Deep-merges a PATCH into the stored config, branch by branch (SPEC §4 PATCH config): objects
 * merge, any other value replaces, `null` removes the key or branch so its defaults apply again.
 * Unknown keys and a non-object where a branch belongs are refused; leaf values are checked on
 * the resolved result by {@link validateConfig}.
 */
export function mergeConfig(stored: StoredConfig, patch: unknown): StoredConfig {
  if (!isPlainObject(patch)) throw ApiError.badRequest('config must be a JSON object');
  checkConfigKeys(patch);
  return mergeBranch(SCHEMA, stored, patch, 'config');
}

function mergeBranch(schema: Branch, stored: unknown, patch: Record<string, unknown>, path: string): StoredConfig {
  const out: StoredConfig = isPlainObject(stored) ? clone(stored) : {};
  for (const [key, value] of Object.entries(patch)) {
    const node = nodeAt(schema, key);
    const at = `${path}.${key}`;
    // checkConfigKeys refused it already; never skipped, as `out.__proto__ = …` would set a prototype.
    if (!node) throw ApiError.badRequest(`${at} is not a known key`);
    if (value === null) {
      delete out[key];
    } else if (isLeaf(node)) {
      out[key] = clone(value);
    } else {
      if (!isPlainObject(value)) throw ApiError.badRequest(`${at} must be an object or null`);
      const merged = mergeBranch(node, out[key], value, at);
      if (Object.keys(merged).length) out[key] = merged;
      else delete out[key];
    }
  }
  return out;
}

/** Checks every key of a resolved config against its rule (the ranges of §8 included). */
export function validateConfig(config: GameConfig): void {
  validateBranch(SCHEMA, config as unknown as Record<string, unknown>, 'config');
  const { allowed, default: def } = config.friends.visibility;
  if (!allowed.includes(def)) {
    throw ApiError.badRequest(`config.friends.visibility.default must be one of the allowed values (${allowed.join(', ')})`);
  }
}

function validateBranch(schema: Branch, values: Record<string, unknown>, path: string): void {
  for (const [key, node] of Object.entries(schema)) {
    const at = `${path}.${key}`;
    if (isLeaf(node)) {
      const reason = node.check(values[key]);
      if (reason) throw ApiError.badRequest(`${at} ${reason}`);
    } else {
      validateBranch(node, values[key] as Record<string, unknown>, at);
    }
  }
}

export interface ConfigDiff {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** The leaves that differ between two resolved configs, as nested objects (audit before/after). */
export function diffConfig(a: GameConfig, b: GameConfig): ConfigDiff {
  const diff: ConfigDiff = { before: {}, after: {} };
  diffBranch(SCHEMA, a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>, diff.before, diff.after);
  return diff;
}

function diffBranch(
  schema: Branch,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): void {
  for (const [key, node] of Object.entries(schema)) {
    if (isLeaf(node)) {
      if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
        before[key] = clone(a[key]);
        after[key] = clone(b[key]);
      }
      continue;
    }
    const subBefore: Record<string, unknown> = {};
    const subAfter: Record<string, unknown> = {};
    diffBranch(node, a[key] as Record<string, unknown>, b[key] as Record<string, unknown>, subBefore, subAfter);
    if (Object.keys(subBefore).length) {
      before[key] = subBefore;
      after[key] = subAfter;
    }
  }
}
