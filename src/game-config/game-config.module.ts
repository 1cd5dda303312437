import { Module } from '@nestjs/common';
import { AdminGameConfigController } from './admin-game-config.controller';
import { FriendsContextCache } from './friends-context-cache';
import { GameConfigRepository } from './game-config.repository';
import { GameConfigService } from './game-config.service';

@Module({
  controllers: [AdminGameConfigController],
  providers: [FriendsContextCache, GameConfigRepository, GameConfigService],
  exports: [GameConfigService],
})
export class GameConfigModule {}
