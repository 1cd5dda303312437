import { summarizeStatement } from './statement-summary';

describe('summarizeStatement', () => {
  describe('the text', () => {
    it('keeps parameters and replaces every literal with ?', () => {
      const sut = summarizeStatement(
        `SELECT * FROM members m WHERE m.user_id = $1 AND m.note = 'bob''s' AND m.x = E'a\\'b' AND m.n > 42 AND m.f < 1.5e3 LIMIT 10`,
      );

      expect(sut.text).toBe('SELECT * FROM members m WHERE m.user_id = $1 AND m.note = ? AND m.x = ? AND m.n > ? AND m.f < ? LIMIT ?');
    });

    it('replaces dollar-quoted strings, and keeps digits inside names', () => {
      const sut = summarizeStatement(`SELECT $body$ secret-user $body$, $$ x $$, col2, uow_9f FROM t1`);

      expect(sut.text).toBe('SELECT ?, ?, col2, uow_9f FROM t1');
    });

    it('puts a statement on one line, without its comments', () => {
      const sut = summarizeStatement(`SELECT a -- the 'alice' case\n  FROM   b /* 'bob' */\n WHERE c = $1`);

      expect(sut.text).toBe('SELECT a FROM b WHERE c = $1');
    });

    it('leaves no value of a lock call spelt into its text', () => {
      const sut = summarizeStatement(`CALL svc_lock_group('01a211ce-3ad1-7000-8000-000000000001')`);

      expect(sut.text).toBe('CALL svc_lock_group(?)');
      expect(sut.summary).toBe('CALL svc_lock_group');
      expect(sut.operation).toBe('CALL');
    });

    it('keeps quoted names', () => {
      expect(summarizeStatement(`SELECT w.id AS "gameId" FROM "webhook_endpoints" w`).text).toBe('SELECT w.id AS "gameId" FROM "webhook_endpoints" w');
    });
  });

  describe('the summary', () => {
    it.each([
      ['SELECT g.id FROM groups g JOIN members m ON m.group_id = g.id WHERE g.id = $1', 'SELECT groups', 'SELECT', 'groups'],
      ['SELECT 1', 'SELECT', 'SELECT', undefined],
      ['INSERT INTO audit_entries (id) VALUES ($1)', 'INSERT audit_entries', 'INSERT', 'audit_entries'],
      ['UPDATE groups SET name = $2 WHERE id = $1', 'UPDATE groups', 'UPDATE', 'groups'],
      ['DELETE FROM bans WHERE id = $1', 'DELETE bans', 'DELETE', 'bans'],
      ['BEGIN', 'BEGIN', 'BEGIN', undefined],
      ['START TRANSACTION', 'START TRANSACTION', 'START TRANSACTION', undefined],
      ['SELECT * FROM groups WHERE id = $1 FOR UPDATE', 'SELECT groups', 'SELECT', 'groups'],
      ['INSERT INTO x (a) VALUES ($1) ON CONFLICT (a) DO UPDATE SET a = EXCLUDED.a', 'INSERT x', 'INSERT', 'x'],
      ['SELECT * FROM groups AS g WHERE g.id = $1', 'SELECT groups', 'SELECT', 'groups'],
    ])('%s is named %s', (text, summary, operation, collection) => {
      const sut = summarizeStatement(text);

      expect(sut).toMatchObject({ summary, operation });
      expect(sut.collection).toBe(collection);
    });

    it('names each table a WITH statement writes, then its main operation', () => {
      const sut = summarizeStatement(`WITH audit AS (
         INSERT INTO audit_entries (id) SELECT id FROM jsonb_to_recordset($1::jsonb) AS x(id uuid)
       ), events AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(id text)
       ), outbox AS (
         INSERT INTO outbox_events (id) SELECT id FROM events
       ), deliveries AS (
         INSERT INTO webhook_deliveries (id) SELECT e.id FROM events e JOIN webhook_endpoints w ON w.id = e.id RETURNING 1
       ), staged AS (
         SELECT x.id, coalesce(x.user_id, (SELECT ui.user_id FROM user_identities ui WHERE ui.external_id = x.external_user_id)) AS user_id
         FROM jsonb_to_recordset($5::jsonb) AS x(id uuid, user_id uuid, external_user_id text)
       ), inbox AS (
         INSERT INTO notifications (id, user_id) SELECT id, user_id FROM staged RETURNING user_id
       )
       SELECT pg_notify(channel, payload) FROM jsonb_to_recordset($3::jsonb) AS n(channel text, payload text)`);

      expect(sut.summary).toBe('INSERT audit_entries INSERT outbox_events INSERT webhook_deliveries INSERT notifications SELECT');
      expect(sut.operation).toBe('SELECT');
      expect(sut.collection).toBeUndefined();
    });

    it('does not take a name the WITH clause defines for a table', () => {
      const sut = summarizeStatement(`WITH due AS (SELECT id FROM webhook_deliveries WHERE x = $1), locked AS MATERIALIZED (SELECT id FROM due FOR UPDATE SKIP LOCKED)
        UPDATE webhook_deliveries d SET attempts = d.attempts + 1 FROM locked WHERE d.id = locked.id RETURNING d.id`);

      expect(sut.summary).toBe('UPDATE webhook_deliveries');
      expect(sut.operation).toBe('UPDATE');
      expect(sut.collection).toBe('webhook_deliveries');
    });

    it('reads a WITH statement whose main operation reads a table', () => {
      const sut = summarizeStatement(`WITH g AS (SELECT id FROM groups WHERE id = $1) SELECT m.* FROM members m JOIN g ON g.id = m.group_id`);

      expect(sut).toMatchObject({ summary: 'SELECT members', operation: 'SELECT', collection: 'members' });
    });

    it('keeps the summary within 255 characters', () => {
      const tables = Array.from({ length: 40 }, (_, i) => `w${i} AS (INSERT INTO table_number_${i} (a) VALUES ($1))`).join(', ');

      expect(summarizeStatement(`WITH ${tables} SELECT 1`).summary.length).toBeLessThanOrEqual(255);
    });
  });
});
