import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { BansCoreModule } from '../bans/bans-core.module';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { RolesModule } from '../roles/roles.module';
import { AdminMembersController } from './admin-members.controller';
import { MemberRolesController } from './member-roles.controller';
import { MemberRolesService } from './member-roles.service';
import { MemberTimeoutsController } from './member-timeouts.controller';
import { MemberTimeoutsService } from './member-timeouts.service';
import { MembersController } from './members.controller';
import { MembersCoreModule } from './members-core.module';
import { MembersService } from './members.service';
import { PasscodeLimiter } from './passcode-limiter';

@Module({
  imports: [GameConfigModule, GroupsCoreModule, MembersCoreModule, RolesModule, BansCoreModule, GamesModule],
  controllers: [MembersController, MemberRolesController, MemberTimeoutsController, AdminMembersController],
  providers: [MembersService, MemberRolesService, MemberTimeoutsService, PasscodeLimiter, AdminGameScope],
})
export class MembersModule {}
