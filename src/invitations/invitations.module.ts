import { Module } from '@nestjs/common';
import { BansCoreModule } from '../bans/bans-core.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { InvitationsController } from './invitations.controller';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';
import { UserInvitationsController } from './user-invitations.controller';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule, BansCoreModule],
  controllers: [InvitationsController, UserInvitationsController],
  providers: [InvitationsRepository, InvitationsService],
})
export class InvitationsModule {}
