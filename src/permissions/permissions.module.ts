import { Module } from '@nestjs/common';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { AdminMemberPermissionsController, AdminPermissionsController } from './admin-permissions.controller';
import { GrantSweeper } from './grant-sweeper';
import { PermissionsController } from './permissions.controller';
import { PermissionsService } from './permissions.service';

@Module({
  imports: [GameConfigModule, GamesModule, GroupsCoreModule, MembersCoreModule],
  controllers: [PermissionsController, AdminPermissionsController, AdminMemberPermissionsController],
  providers: [PermissionsService, GrantSweeper],
})
export class PermissionsModule {}
