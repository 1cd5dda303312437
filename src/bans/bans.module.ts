import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { JoinRequestsCoreModule } from '../join-requests/join-requests-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { AdminBanActionsController } from './admin-ban-actions.controller';
import { BansController } from './bans.controller';
import { BansCoreModule } from './bans-core.module';
import { BansService } from './bans.service';
import { GroupBansService } from './group-bans.service';

@Module({
  imports: [BansCoreModule, GroupsCoreModule, MembersCoreModule, JoinRequestsCoreModule, GamesModule],
  controllers: [BansController, AdminBanActionsController],
  providers: [BansService, GroupBansService, AdminGameScope],
  exports: [BansService],
})
export class BansModule {}
