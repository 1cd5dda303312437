import { Module } from '@nestjs/common';
import { AdminGameScope } from '../admin/admin-game-scope';
import { GamesModule } from '../games/games.module';
import { IdentityRepository } from '../identity/identity.repository';
import { AdminUserErasureController } from './admin-user-erasure.controller';
import { UserErasureController } from './user-erasure.controller';
import { UserErasureRepository } from './user-erasure.repository';
import { UserErasureService } from './user-erasure.service';

/** A player's data in a game (EXTENSIONS X7). */
@Module({
  imports: [GamesModule],
  controllers: [UserErasureController, AdminUserErasureController],
  providers: [AdminGameScope, IdentityRepository, UserErasureRepository, UserErasureService],
  exports: [UserErasureService],
})
export class UsersModule {}
