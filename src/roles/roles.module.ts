import { Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { RolesController } from './roles.controller';
import { RolesRepository } from './roles.repository';
import { RolesService } from './roles.service';

@Module({
  imports: [GroupsCoreModule],
  controllers: [RolesController],
  providers: [RolesRepository, RolesService],
  exports: [RolesRepository, RolesService],
})
export class RolesModule {}
