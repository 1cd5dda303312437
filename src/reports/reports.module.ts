import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GamesModule } from '../games/games.module';
import { AdminReportsController } from './admin-reports.controller';
import { ReportsController } from './reports.controller';
import { ReportsRepository } from './reports.repository';
import { ReportsService } from './reports.service';

@Module({
  imports: [GamesModule],
  controllers: [ReportsController, AdminReportsController],
  providers: [ReportsService, ReportsRepository, AdminGameScope],
  exports: [ReportsRepository],
})
export class ReportsModule {}
