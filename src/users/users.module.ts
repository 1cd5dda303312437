import { Module } from '@nestjs/common';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { AdminUserExportController } from './admin-user-export.controller';
import { UserExportController } from './user-export.controller';
import { UserExportRepository } from './user-export.repository';
import { UserExportService } from './user-export.service';

/** A player's data as a whole (EXTENSIONS X7): `/v1/users/:userId/...` and its admin twins. */
@Module({
  imports: [GamesModule, GameConfigModule],
  controllers: [UserExportController, AdminUserExportController],
  providers: [UserExportRepository, UserExportService],
})
export class UsersModule {}
