import { Module } from '@nestjs/common';
import { BansCoreModule } from '../bans/bans-core.module';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { RolesModule } from '../roles/roles.module';
import { MemberRolesController } from './member-roles.controller';
import { MemberRolesService } from './member-roles.service';
import { MembersController } from './members.controller';
import { MembersCoreModule } from './members-core.module';
import { MembersService } from './members.service';
import { PasscodeLimiter } from './passcode-limiter';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule, RolesModule, BansCoreModule],
  controllers: [MembersController, MemberRolesController],
  providers: [MembersService, MemberRolesService, PasscodeLimiter],
})
export class MembersModule {}
