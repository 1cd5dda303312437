import { Inject, Injectable, Optional, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { defer, from, mergeMap, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { COMMIT_POSITION_SQL } from '../prepared-client';
import { CONSISTENCY_HEADER, parsePosition, tokenFor } from './consistency-token';
import { withReadContext, type ReadContext } from './read-context';
import { REPLICA_READ } from './replica-read.decorator';
import { ReplicaRouter } from './replica-router';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface HttpRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}
interface HttpReply {
  header(name: string, value: string): unknown;
}

/**
 * Around every handler: reads the consistency token a request sends back (400 naming the header
 * when it is no token), routes a @ReplicaRead() handler's reads to the replica or the primary, and
 * gives every successful write its token, the WAL position past its commit. A write that committed
 * nothing (an idempotent repeat) answers the primary's current position: a later read still sees
 * at least what this one saw.
 */
@Injectable()
export class ConsistencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly primary: DataSource,
    @Optional() @Inject(ReplicaRouter) private readonly router: ReplicaRouter | null = null,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<HttpRequest>();
    const token = tokenOf(req.headers[CONSISTENCY_HEADER]);
    const write = WRITES.has(req.method);
    const replicaRoute = !write && this.router !== null && this.reflector.get<boolean>(REPLICA_READ, context.getHandler()) === true;
    const handled = defer(async () => {
      const store: ReadContext = { replica: replicaRoute ? await this.router!.route(token) : null, commitPosition: null };
      return store;
    }).pipe(mergeMap((store) => new Observable<[ReadContext, unknown]>((sub) =>
      withReadContext(store, () => next.handle().subscribe({ next: (v) => sub.next([store, v]), error: (e) => sub.error(e), complete: () => sub.complete() })),
    )));
    if (!write) return handled.pipe(mergeMap(([, value]) => [value]));
    const reply = http.getResponse<HttpReply>();
    return handled.pipe(
      mergeMap(([store, value]) =>
        from(
          (async () => {
            reply.header(CONSISTENCY_HEADER, tokenFor(store.commitPosition ?? (await this.currentPosition())));
            return value;
          })(),
        ),
      ),
    );
  }

  private async currentPosition(): Promise<string> {
    const [row] = (await this.primary.query(COMMIT_POSITION_SQL)) as { pg_current_wal_insert_lsn: string }[];
    return row.pg_current_wal_insert_lsn;
  }
}

function tokenOf(raw: string | string[] | undefined): bigint | null {
  if (raw === undefined) return null;
  const position = typeof raw === 'string' ? parsePosition(raw) : null;
  if (position === null) {
    throw ApiError.badRequest(`${CONSISTENCY_HEADER} must be the value of the ${CONSISTENCY_HEADER} header of a write's answer`);
  }
  return position;
}
