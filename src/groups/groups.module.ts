import { Module } from '@nestjs/common';
import { JoinRequestsCoreModule } from '../join-requests/join-requests-core.module';
import { MembersCoreModule } from '../members/members-core.module';
import { GroupSearchController } from './group-search.controller';
import { GroupsController } from './groups.controller';
import { GroupsCoreModule } from './groups-core.module';
import { GroupOwnerService } from './group-owner.service';
import { GroupsService } from './groups.service';
import { MemberCountFolder } from './member-count-folder';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule, JoinRequestsCoreModule],
  controllers: [GroupSearchController, GroupsController],
  providers: [GroupsService, GroupOwnerService, MemberCountFolder],
})
export class GroupsModule {}
