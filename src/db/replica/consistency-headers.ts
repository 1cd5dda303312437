import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { COMMIT_POSITION_SQL } from '../prepared-client';
import { CONSISTENCY_HEADER, MAX_TOKENS_PER_REQUEST, parsePosition, readTokenList, type ConsistencyTokens } from './consistency-token';
import { latestCommitPosition } from './read-context';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The 400 of a request whose `x-svc-consistency` is no token at all, else null (checked on arrival by the app's one onRequest hook). */
export function consistencyHeaderProblem(tokens: ConsistencyTokens, headers: IncomingHttpHeaders): ApiError | null {
  const raw = headers[CONSISTENCY_HEADER];
  if (raw === undefined || (typeof raw === 'string' && readTokenList(tokens, raw) !== null)) return null;
  return ApiError.badRequest(
    `${CONSISTENCY_HEADER} must be the value of the ${CONSISTENCY_HEADER} header of a write's answer (or up to ${MAX_TOKENS_PER_REQUEST} of them, separated by commas)`,
  );
}

/**
 * A successful write answers `x-svc-consistency`: the furthest commit position this instance has
 * seen, which is at or past the write's own commit, sealed. Before its first commit an instance
 * reads the primary's position. Installed as an onSend hook of the write routes only: reads pay nothing.
 */
export function installConsistencyHeaders(fastify: FastifyInstance, primary: DataSource, tokens: ConsistencyTokens): void {
  const answer: onSendHookHandler = (_request: FastifyRequest, reply: FastifyReply, payload, done) => {
    if (reply.statusCode < 200 || reply.statusCode >= 300) return done(null, payload);
    const seen = latestCommitPosition(primary);
    if (seen !== null) {
      reply.header(CONSISTENCY_HEADER, tokens.issue(seen));
      return done(null, payload);
    }
    primary
      .query(COMMIT_POSITION_SQL)
      .then((rows: { pg_current_wal_insert_lsn: string }[]) => {
        const at = parsePosition(rows[0].pg_current_wal_insert_lsn);
        if (at !== null) reply.header(CONSISTENCY_HEADER, tokens.issue(at));
      })
      .then(
        () => done(null, payload),
        () => done(null, payload),
      );
  };
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => WRITES.has(m))) return;
    const existing = route.onSend ? (Array.isArray(route.onSend) ? route.onSend : [route.onSend]) : [];
    route.onSend = [...existing, answer];
  });
}
