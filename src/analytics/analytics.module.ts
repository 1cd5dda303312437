import { Module } from '@nestjs/common';
import { GamesModule } from '../games/games.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';

/** The five operator analytics of a game (SPEC §4 Admin surface), computed in SQL. */
@Module({
  imports: [GamesModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsRepository, AnalyticsService],
})
export class AnalyticsModule {}
