import { Module } from '@nestjs/common';
import { BanChecker } from './ban-checker';
import { BansRepository } from './bans.repository';

/** Ban rows and enforcement, shared with membership and invitations. */
@Module({ providers: [BanChecker, BansRepository], exports: [BanChecker, BansRepository] })
export class BansCoreModule {}
