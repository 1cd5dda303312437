import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { IdentityRepository } from '../identity/identity.repository';
import { AdminUserErasureController } from './admin-user-erasure.controller';
import { AdminUserExportController } from './admin-user-export.controller';
import { UserErasureController } from './user-erasure.controller';
import { UserErasureRepository } from './user-erasure.repository';
import { UserErasureService } from './user-erasure.service';
import { UserExportController } from './user-export.controller';
import { UserExportRepository } from './user-export.repository';
import { UserExportService } from './user-export.service';

/** A player's data as a whole (EXTENSIONS X7): `/v1/users/:userId` and its export, and their admin twins. */
@Module({
  imports: [GamesModule, GameConfigModule],
  controllers: [UserExportController, AdminUserExportController, UserErasureController, AdminUserErasureController],
  providers: [AdminGameScope, IdentityRepository, UserExportRepository, UserExportService, UserErasureRepository, UserErasureService],
  exports: [UserErasureService],
})
export class UsersModule {}
