import { Module } from '@nestjs/common';
import { BansModule } from '../bans/bans.module';
import { GamesModule } from '../games/games.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { RolesModule } from '../roles/roles.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminAuditService } from './admin-audit.service';
import { AdminBansController } from './admin-bans.controller';
import { AdminEventsController } from './admin-events.controller';
import { AdminGameScope } from './admin-game-scope';
import { AdminGroupsController } from './admin-groups.controller';
import { AdminGroupsRepository } from './admin-groups.repository';
import { AdminGroupsService } from './admin-groups.service';
import { AdminRolesController } from './admin-roles.controller';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersRepository } from './admin-users.repository';
import { AdminUsersService } from './admin-users.service';
import { AdminWebhooksController } from './admin-webhooks.controller';
import { AdminController } from './admin.controller';
import { AdminRepository } from './admin.repository';
import { AdminService } from './admin.service';
import { UserGamesController } from './user-games.controller';

/**
 * The operator surface beyond games and keys (SPEC §4 Admin surface): lists, stats, audit search,
 * the game routes' reads an operator console needs (roles, bans, events, webhooks), scoped to the
 * path's game through the game routes' own services, and a user's page in a game.
 */
@Module({
  imports: [GamesModule, GroupsCoreModule, RolesModule, BansModule, WebhooksModule],
  controllers: [
    AdminController,
    AdminGroupsController,
    UserGamesController,
    AdminRolesController,
    AdminBansController,
    AdminEventsController,
    AdminWebhooksController,
    AdminUsersController,
  ],
  providers: [
    AdminRepository,
    AdminGroupsRepository,
    AdminUsersRepository,
    AdminService,
    AdminAuditService,
    AdminGroupsService,
    AdminUsersService,
    AdminGameScope,
  ],
})
export class AdminModule {}
