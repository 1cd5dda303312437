import { Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { MembersController } from './members.controller';
import { MembersCoreModule } from './members-core.module';
import { MembersService } from './members.service';
import { PasscodeLimiter } from './passcode-limiter';

@Module({
  imports: [GroupsCoreModule, MembersCoreModule],
  controllers: [MembersController],
  providers: [MembersService, PasscodeLimiter],
})
export class MembersModule {}
