import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { parseSettings } from '../../src/config/settings';
import { answerCheck, checkAnswers } from './answer-schemas';
import { createTestDatabase, type TestDatabase } from './test-db';

export const ADMIN_TOKEN = 'jadm_test_0123456789abcdef0123';

export interface TestApp {
  app: NestFastifyApplication;
  http: TestAgent;
  db: TestDatabase;
  close(): Promise<void>;
}

/**
 * The production app (same factory as main.ts) on a database of its own. `env` overrides the
 * settings; pass `db` to run a second instance on the same database. Every 2xx JSON answer is
 * checked against the API document (answer-schemas.ts); close() fails on a mismatch.
 */
export async function startTestApp(env: Record<string, string> = {}, db?: TestDatabase): Promise<TestApp> {
  const database = db ?? (await createTestDatabase());
  const settings = parseSettings({
    DATABASE_URL: database.url,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    DATABASE_POOL_MAX: '5',
    ...env,
  });
  const app = await createApp(settings);
  checkAnswers(app);
  return {
    app,
    http: request(app.getHttpServer()),
    db: database,
    close: async () => {
      await app.close();
      if (!db) await database.drop();
      const mismatches = answerCheck.mismatches.splice(0);
      if (mismatches.length > 0) throw new Error(`answers that do not match the API document:\n${[...new Set(mismatches)].join('\n')}`);
    },
  };
}

/** A game with its first key, created through the admin API. */
export async function newGame(t: TestApp, name = 'test game'): Promise<{ gameId: string; key: string; keyId: string }> {
  const g = await t.http.post('/v1/admin/games').set('authorization', `Bearer ${ADMIN_TOKEN}`).send({ name });
  if (g.status !== 201) throw new Error(`create game: ${g.status} ${g.text}`);
  const k = await t.http.post(`/v1/admin/games/${g.body.id}/api-keys`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
  if (k.status !== 201) throw new Error(`mint key: ${k.status} ${k.text}`);
  return { gameId: g.body.id, key: k.body.key, keyId: k.body.id };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const asAdmin = bearer(ADMIN_TOKEN);

/** A new game (see newGame) with the bearer headers of its key. */
export async function authedGame(t: TestApp, name?: string): Promise<{ gameId: string; key: string; auth: Record<string, string> }> {
  const g = await newGame(t, name);
  return { gameId: g.gameId, key: g.key, auth: bearer(g.key) };
}
