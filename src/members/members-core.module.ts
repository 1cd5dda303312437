import { Module } from '@nestjs/common';
import { JoinRequestsCoreModule } from '../join-requests/join-requests-core.module';
import { MembersRepository } from './members.repository';
import { MembershipService } from './membership.service';

/** Member rows and the path into membership, shared by groups, members, invitations and join requests. */
@Module({ imports: [JoinRequestsCoreModule], providers: [MembersRepository, MembershipService], exports: [MembersRepository, MembershipService] })
export class MembersCoreModule {}
