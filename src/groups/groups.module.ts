import { Module } from '@nestjs/common';
import { MembersCoreModule } from '../members/members-core.module';
import { GroupsController } from './groups.controller';
import { GroupsCoreModule } from './groups-core.module';
import { GroupsService } from './groups.service';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule],
  controllers: [GroupsController],
  providers: [GroupsService],
})
export class GroupsModule {}
