import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GamesModule } from '../games/games.module';
import { JoinRequestsCoreModule } from '../join-requests/join-requests-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { ModerationModule } from '../moderation/moderation.module';
import { AdminGroupLifecycleController } from './admin-group-lifecycle.controller';
import { AdminGroupUpdateController } from './admin-group-update.controller';
import { GroupSearchController } from './group-search.controller';
import { GroupsController } from './groups.controller';
import { GroupsCoreModule } from './groups-core.module';
import { GroupOwnerService } from './group-owner.service';
import { GroupsService } from './groups.service';
import { MemberCountFolder } from './member-count-folder';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule, JoinRequestsCoreModule, GamesModule, ModerationModule],
  controllers: [GroupSearchController, GroupsController, AdminGroupLifecycleController, AdminGroupUpdateController],
  providers: [GroupsService, GroupOwnerService, MemberCountFolder, AdminGameScope],
})
export class GroupsModule {}
