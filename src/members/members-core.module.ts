import { Module } from '@nestjs/common';
import { MembersRepository } from './members.repository';
import { MembershipService } from './membership.service';

/** Member rows and the path into membership, shared by groups, members and invitations. */
@Module({ providers: [MembersRepository, MembershipService], exports: [MembersRepository, MembershipService] })
export class MembersCoreModule {}
