import { Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { JoinRequestsCoreModule } from '../join-requests/join-requests-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { BansController } from './bans.controller';
import { BansCoreModule } from './bans-core.module';
import { BansService } from './bans.service';
import { GroupBansService } from './group-bans.service';

@Module({
  imports: [BansCoreModule, GroupsCoreModule, MembersCoreModule, JoinRequestsCoreModule],
  controllers: [BansController],
  providers: [BansService, GroupBansService],
  exports: [BansService],
})
export class BansModule {}
