import { Inject, Injectable, Optional, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { from, mergeMap, Observable } from 'rxjs';
import { CONSISTENCY_HEADER, ConsistencyTokens, readTokenList } from './consistency-token';
import { withReplica } from './read-context';
import { ReplicaRouter } from './replica-router';

/**
 * Around a @ReplicaRead() handler only: with a replica configured, decides where its reads go (the
 * replica if it has replayed the request's consistency token, or is within the lag bound; else the
 * primary) and runs the handler there. Without one, it steps aside. The token was validated on
 * arrival (consistency-headers.ts).
 */
@Injectable()
export class ReplicaReadInterceptor implements NestInterceptor {
  constructor(
    private readonly tokens: ConsistencyTokens,
    @Optional() @Inject(ReplicaRouter) private readonly router: ReplicaRouter | null = null,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const router = this.router;
    if (!router || context.getType() !== 'http') return next.handle();
    const raw = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>().headers[CONSISTENCY_HEADER];
    const reading = typeof raw === 'string' ? readTokenList(this.tokens, raw) : null;
    // A token that does not open here names a write the replica may lack: the primary has it.
    const token = reading === null ? null : reading === 'unreadable' ? 'unreadable' : reading.position;
    return from(router.route(token)).pipe(
      mergeMap((replica) => new Observable<unknown>((sub) => withReplica(replica, () => next.handle().subscribe(sub)))),
    );
  }
}
