/**
 * What `npm run lint:migrations` (scripts/lint-migrations.mjs) accepts of squawk's findings, and why.
 *
 * The lint runs every migration, up and then down, on a scratch database, records the statements
 * each one sends, and has squawk judge them. A finding fails the lint unless an entry below covers
 * it; an entry that covers nothing any more fails it too, so this list only ever says what is true.
 *
 * Before adding an entry, make the migration safe instead (docs/operations.md, Schema changes;
 * migrations/online.ts): a lock_timeout and retries around a statement that blocks writes
 * (lockedStatement, lockedTransaction), CREATE/DROP INDEX CONCURRENTLY outside a transaction,
 * constraints added NOT VALID then validated, backfills in batches. An entry is for what is safe
 * for a reason squawk cannot see, or a migration that cannot be made so; its reason says which, for
 * whom, and since when. Name the migration (not '*') unless the reason holds for a kind of statement
 * wherever it occurs, and then say which statements (`statement`).
 *
 * "The builds before a migration" below: release 0.0.0 is every build before 1.0.0, and a database
 * may have stopped at any migration of it; the builds from before a migration are the previous
 * release for it, and keep serving while it runs during a rolling upgrade.
 */
export interface LintException {
  /** The migration's name, several, or '*' for any (then `statement` says which statements). */
  migration: string | readonly string[];
  /** The squawk rule, several, or '*' for any. */
  rule: string | readonly string[];
  /** 'up' unless said; '*' for either. */
  direction?: 'up' | 'down' | '*';
  /** Only the statements whose first line this matches (a RegExp, or a string it starts with). */
  statement?: RegExp | string;
  reason: string;
}

const TIMEOUTS = ['require-lock-timeout', 'require-statement-timeout'];

/**
 * Release 0.0.0: the migrations before MentionNames1765800000000, which are the schema of every build
 * before 1.0.0 (migrations/release.ts).
 */
const RELEASE_0_0_0 = [
  'Foundation1763700000000',
  'Groups1763800000000',
  'RolesBans1763900000000',
  'LongExternalIds1763950000000',
  'Friends1764000000000',
  'AdminIndexes1764100000000',
  'Webhooks1764200000000',
  'EventFeed1764300000000',
  'WebhookLog1764400000000',
  'JoinRequests1764500000000',
  'MemberCountDeltas1764600000000',
  'WebhookAttemptsParent1764700000000',
  'FeedEras1764800000000',
  'GroupFinding1764900000000',
  'GroupSearch1764950000000',
  'Admissions1765000000000',
  'InvitationInbox1765050000000',
  'Erasure1765100000000',
  'EventTraceContext1765200000000',
  'ApiKeyScopes1765300000000',
  'Operators1765400000000',
  'FriendSuggestions1765500000000',
  'AuditOrderIndex1765600000000',
  'LockKeysProcedure1765700000000',
];

export const LINT_EXCEPTIONS: readonly LintException[] = [
  // Kinds of statements, wherever they are.
  {
    migration: '*',
    direction: '*',
    rule: TIMEOUTS,
    statement: /^(CREATE (OR REPLACE )?|DROP )(FUNCTION|PROCEDURE) /,
    reason:
      'Creating, replacing or dropping a function or procedure locks no table: no write waits for it. ' +
      'A trigger function replaced while its table is written is used by the next statement that fires it.',
  },
  {
    migration: '*',
    direction: '*',
    rule: TIMEOUTS,
    statement: /^(CREATE (UNIQUE )?INDEX|DROP INDEX) CONCURRENTLY /,
    reason:
      'A concurrent build or drop takes SHARE UPDATE EXCLUSIVE, which no INSERT, UPDATE or DELETE waits for, ' +
      'then waits for older transactions without blocking anyone. A lock_timeout would end it in those waits ' +
      'and leave an INVALID index behind; a statement_timeout would end a build that is reading a large table. ' +
      'Each is built again if found INVALID (online.ts createIndexConcurrently).',
  },
  {
    migration: '*',
    rule: [...TIMEOUTS, 'prefer-robust-stmts'],
    statement: /^ALTER TABLE \w+ VALIDATE CONSTRAINT /,
    reason:
      'VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE, which no write waits for, while it reads the whole table, ' +
      'so it runs without timeouts and outside a transaction. It can run again: validating a valid constraint does nothing.',
  },
  {
    migration: '*',
    rule: TIMEOUTS,
    statement: /^CREATE EXTENSION IF NOT EXISTS /,
    reason: 'Creating pg_trgm, unaccent or btree_gin adds types, functions and operator classes: it locks no table of ours.',
  },
  {
    migration: '*',
    rule: 'prefer-bigint-over-int',
    reason:
      'A type chosen for its range, not a lock: counts, caps, eras, HTTP statuses and durations stay far below 2^31. ' +
      'Changing one would rewrite its table.',
  },
  {
    migration: '*',
    rule: 'ban-char-field',
    reason:
      'char(16) invitation codes and char(24) event ids are fixed-length hex strings the service makes; ' +
      'no padding ever applies. Changing the type would rewrite outbox_events and invitations.',
  },

  // Migrations one by one.
  {
    migration: 'Foundation1763700000000',
    rule: TIMEOUTS,
    reason:
      'The first migration: it runs on an empty database, in one transaction, so no build runs beside it and ' +
      'nothing can wait on the tables it creates and references.',
  },
  {
    migration: 'Groups1763800000000',
    rule: ['constraint-missing-not-valid', 'adding-foreign-key-constraint'],
    reason:
      'audit_entries is empty in any database at Foundation1763700000000: its build writes no audit entry (its only ' +
      'writes are games and API keys, which it does not audit). The key is checked against no row, within the ' +
      "migration's lock_timeout (lockedTransaction).",
  },
  {
    migration: 'LongExternalIds1763950000000',
    rule: '*',
    reason:
      'Not online, and a contract migration: it replaces the primary key of user_identities (ACCESS EXCLUSIVE while ' +
      'the new key and the hashed unique index are built), and the builds before it anchor identities with ' +
      'ON CONFLICT (game_id, external_id), which fails once that key is gone; the key cannot stay, since long ' +
      'external ids do not fit a b-tree entry. A database that has not applied it (builds before 2026-11-22) ' +
      'upgrades with every instance stopped first.',
  },
  {
    migration: 'Friends1764000000000',
    rule: 'require-concurrent-index-creation',
    statement: 'CREATE INDEX games_network',
    reason:
      'games holds one row per game (a studio runs a handful): the build is over at once, inside the ' +
      "migration's lock_timeout (lockedTransaction).",
  },
  {
    migration: 'EventFeed1764300000000',
    rule: '*',
    reason:
      'Not online: xid (default pg_current_xact_id(), volatile) and seq (an identity) rewrite outbox_events under ' +
      'ACCESS EXCLUSIVE, and its two indexes are built plainly after. An online form would have to backfill the ' +
      'feed order (xid, seq) of every event already written, which decides the order the feed gives them; it is ' +
      'left as it is. A database that has not applied it (builds before 2026-11-25) upgrades with every instance ' +
      'stopped first.',
  },
  {
    migration: 'WebhookLog1764400000000',
    rule: 'constraint-missing-not-valid',
    statement: 'ALTER TABLE webhook_endpoints',
    reason:
      "webhook_endpoints holds a few rows per game: the two checks read them at once, inside the step's " +
      'lock_timeout (lockedTransaction), and the new column is null in every row.',
  },
  {
    migration: ['Operators1765400000000', 'MemberCountDeltas1764600000000', 'AccessLedger1766300000000', 'Notifications1766400000000', 'Reports1766500000000'],
    rule: TIMEOUTS,
    statement: 'CREATE INDEX ',
    reason:
      'The indexes of tables created earlier in the same transaction: no other session sees those tables before ' +
      'it commits, so nothing waits for these locks.',
  },

  // Downs.
  {
    migration: RELEASE_0_0_0,
    direction: 'down',
    rule: '*',
    reason:
      'Not online, and accepted as such: `guildhall migrate down` runs each of these downs in one transaction ' +
      '(downsInTransaction, migrations/release.ts), where no index can be dropped or built concurrently; they ' +
      'drop what their up added, and most take their locks without a lock_timeout (those of the reworked ' +
      'migrations use online.ts). They take a ' +
      'database back to an earlier build of release 0.0.0, by hand, with its instances stopped; rolling back from ' +
      '1.0.0 reverts the migrations of 1.0.0 only, so no rolling upgrade or rollback runs them.',
  },
  {
    migration: 'AccessLedger1766300000000',
    direction: 'down',
    rule: ['ban-drop-table', ...TIMEOUTS],
    reason:
      'The down drops the ledger table its up created, which only builds of 1.1.0 and later use: rolled back to ' +
      '1.0.0, no build that runs reads or writes it, and none waits for its lock. The removals it recorded are ' +
      'lost with it; export the ledger first (`guildhall ledger export --out`), as the docs of the rollback say.',
  },
  {
    migration: 'Notifications1766400000000',
    direction: 'down',
    rule: ['ban-drop-table', ...TIMEOUTS],
    reason:
      'The down drops the notifications table its up created, which only builds of 1.1.0 and later use: rolled back ' +
      "to 1.0.0, no build that runs reads or writes it, and none waits for its lock. The players' notifications are " +
      'lost with it, as a rollback means.',
  },
  {
    migration: 'Journal1767200000000',
    direction: 'down',
    rule: 'ban-drop-table',
    reason:
      'The down drops the journal its up created, which builds of 1.2.0 write and none reads yet: rolled back to ' +
      '1.1.0, no build that runs reads or writes it. Every change it holds is in audit_entries and outbox_events too.',
  },
  {
    migration: 'Reports1766500000000',
    direction: 'down',
    rule: ['ban-drop-table', ...TIMEOUTS],
    reason:
      'The down drops the two report tables its up created, which only builds of 1.1.0 and later use: rolled back ' +
      "to 1.0.0, no build that runs reads or writes them, and none waits for their locks. The players' reports are " +
      'lost with them, as a rollback means.',
  },
  {
    migration: ['ServiceKeys1765900000000', 'SchemaReleases1766000000000', 'UnindexedNames1767600000000', 'EndpointEpochs1768100000000', 'DeliveryPositions1768200000000'],
    direction: 'down',
    rule: ['ban-drop-table', ...TIMEOUTS],
    reason:
      'The down drops the table its up created, which only builds of its own release and later use: rolled back to an ' +
      'earlier release, no build that runs reads or writes it, and none waits for its lock.',
  },
  {
    migration: 'GrantHolderOrder1766800000000',
    direction: 'down',
    rule: 'ban-drop-column',
    reason:
      'The columns go under the lock_timeout of online.ts (lockedStatement): only builds of 1.1.0 and later read ' +
      'them, and the triggers that fill them for 1.0.0 go first.',
  },
  {
    migration: 'MemberTimeouts1766600000000',
    direction: 'down',
    rule: 'ban-drop-column',
    reason:
      'The column goes under the lock_timeout of online.ts (lockedStatement). Only builds of 1.1.0 and later read ' +
      'or write it; rolled back to 1.0.0, no running build names it, and what is lost is only the timeouts running ' +
      'then, which 1.0.0 never enforced.',
  },
  {
    migration: 'GrantExpiry1766100000000',
    direction: 'down',
    rule: 'ban-drop-column',
    reason:
      'The expiry columns go under the lock_timeout of online.ts (lockedStatement). Only builds of 1.1.0 and later ' +
      'read or write them; rolled back to 1.0.0, no running build names them, and what is lost is only when grants ' +
      'would have ended: each becomes permanent, as it is to 1.0.0.',
  },
  {
    migration: 'ApiKeyNameLastUse1766200000000',
    direction: 'down',
    rule: 'ban-drop-column',
    reason:
      'The down drops the api_keys columns its up added, which only builds of 1.1.0 and later name: rolled back to ' +
      '1.0.0, no build that runs reads or writes them. Key names and last uses are lost, as a rollback means.',
  },
  {
    migration: 'DeliveryLease1767000000000',
    direction: 'down',
    rule: 'ban-drop-column',
    reason:
      'The down drops webhook_deliveries.lease_until, which only builds of 1.1.0 and later name: rolled back to 1.0.0, ' +
      'whose claims lease through next_attempt_at (which 1.1.0 also writes), no build that runs reads it.',
  },
  {
    migration: 'OldTablesDropped1767900000000',
    rule: 'ban-drop-table',
    reason:
      'audit_entries and outbox_events are empty since 1.6.0 (OldTablesEmptied) and no build from 1.6.0 on names them; ' +
      '1.5.0, which still does, may not run beside this migration (expandIn(1.7.0)). Each drop waits at most ' +
      "online.ts's lock_timeout and is tried again (lockedStatement).",
  },
  {
    migration: 'OldTablesDropped1767900000000',
    direction: 'down',
    rule: ['ban-char-field', 'prefer-bigint-over-int'],
    reason:
      'The down makes the two tables again exactly as 1.6.0 has them (char(24) event ids, an integer era), so a ' +
      'rollback leaves the schema that release and its own downs expect.',
  },
];
