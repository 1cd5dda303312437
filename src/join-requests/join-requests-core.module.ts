import { Module } from '@nestjs/common';
import { JoinRequestCloser } from './join-request-closer';
import { JoinRequestsRepository } from './join-requests.repository';

/** Join request rows and their closing by other changes (joins, bans, group deletion), shared with those modules. */
@Module({ providers: [JoinRequestsRepository, JoinRequestCloser], exports: [JoinRequestsRepository, JoinRequestCloser] })
export class JoinRequestsCoreModule {}
