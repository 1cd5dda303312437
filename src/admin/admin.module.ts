import { Module } from '@nestjs/common';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { AdminAuditService } from './admin-audit.service';
import { AdminGroupsController } from './admin-groups.controller';
import { AdminGroupsRepository } from './admin-groups.repository';
import { AdminGroupsService } from './admin-groups.service';
import { AdminController } from './admin.controller';
import { AdminRepository } from './admin.repository';
import { AdminService } from './admin.service';
import { UserGamesController } from './user-games.controller';

/** The operator surface beyond games and keys (SPEC §4 Admin surface): lists, stats, audit search. */
@Module({
  imports: [GamesModule, GroupsCoreModule],
  controllers: [AdminController, AdminGroupsController, UserGamesController],
  providers: [AdminRepository, AdminGroupsRepository, AdminService, AdminAuditService, AdminGroupsService],
})
export class AdminModule {}
