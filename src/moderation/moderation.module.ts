import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { ReportsModule } from '../reports/reports.module';
import { AdminNamesController } from './admin-names.controller';
import { NamePolicies } from './name-policies';
import { NamesScanService } from './names-scan.service';

/** EXTENSIONS X10: what a game does not allow of its players. */
@Module({
  imports: [GameConfigModule, GamesModule, ReportsModule],
  controllers: [AdminNamesController],
  providers: [NamePolicies, NamesScanService, AdminGameScope],
  exports: [NamePolicies],
})
export class ModerationModule {}
