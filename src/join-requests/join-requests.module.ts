import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { BansCoreModule } from '../bans/bans-core.module';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { AdminJoinRequestsController } from './admin-join-requests.controller';
import { JoinRequestsController } from './join-requests.controller';
import { JoinRequestsCoreModule } from './join-requests-core.module';
import { JoinRequestsService } from './join-requests.service';

@Module({
  imports: [JoinRequestsCoreModule, GroupsCoreModule, MembersCoreModule, BansCoreModule, GamesModule],
  controllers: [JoinRequestsController, AdminJoinRequestsController],
  providers: [JoinRequestsService, AdminGameScope],
})
export class JoinRequestsModule {}
