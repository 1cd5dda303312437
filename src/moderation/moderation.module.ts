import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GameConfigModule } from '../game-config/game-config.module';
import { GamesModule } from '../games/games.module';
import { AdminNamesController } from './admin-names.controller';
import { NamePolicies } from './name-policies';

/** EXTENSIONS X10: what a game does not allow of its players. */
@Module({
  imports: [GameConfigModule, GamesModule],
  controllers: [AdminNamesController],
  providers: [NamePolicies, AdminGameScope],
  exports: [NamePolicies],
})
export class ModerationModule {}
