import { Module } from '@nestjs/common';
import { BansCoreModule } from '../bans/bans-core.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { JoinRequestsController } from './join-requests.controller';
import { JoinRequestsCoreModule } from './join-requests-core.module';
import { JoinRequestsService } from './join-requests.service';

@Module({
  imports: [JoinRequestsCoreModule, GroupsCoreModule, MembersCoreModule, BansCoreModule],
  controllers: [JoinRequestsController],
  providers: [JoinRequestsService],
})
export class JoinRequestsModule {}
