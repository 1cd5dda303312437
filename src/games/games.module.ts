import { Module } from '@nestjs/common';
import { API_KEY_LOOKUP } from '../common/auth/api-key-lookup';
import { AdminGamesController } from './admin-games.controller';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyMetrics } from './api-key-metrics';
import { GamesRepository } from './games.repository';
import { GamesService } from './games.service';
import { WhoamiController } from './whoami.controller';

@Module({
  controllers: [AdminGamesController, WhoamiController],
  providers: [GamesRepository, GamesService, ApiKeyCache, ApiKeyMetrics, { provide: API_KEY_LOOKUP, useExisting: ApiKeyCache }],
  exports: [GamesService, GamesRepository, API_KEY_LOOKUP],
})
export class GamesModule {}
