import { Module } from '@nestjs/common';
import { GameConfigModule } from '../game-config/game-config.module';
import { BlocksController } from './blocks.controller';
import { BlocksService } from './blocks.service';
import { FriendRequestsController } from './friend-requests.controller';
import { FriendRequestsService } from './friend-requests.service';
import { FriendTagsController } from './friend-tags.controller';
import { FriendTagsRepository } from './friend-tags.repository';
import { FriendTagsService } from './friend-tags.service';
import { FriendsGate } from './friends-gate';
import { FriendReadsRepository } from './friend-reads.repository';
import { FriendsRepository } from './friends.repository';
import { FriendshipsController } from './friendships.controller';
import { FriendshipsService } from './friendships.service';
import { SuggestionsController } from './suggestions.controller';
import { SuggestionsRefresher } from './suggestions-refresher';
import { SuggestionsRepository } from './suggestions.repository';
import { SuggestionsService } from './suggestions.service';
import { VisibilityController } from './visibility.controller';
import { VisibilityService } from './visibility.service';

/** The friends graph (SPEC §4 Friends). */
@Module({
  imports: [GameConfigModule],
  controllers: [
    FriendRequestsController,
    SuggestionsController,
    FriendshipsController,
    BlocksController,
    FriendTagsController,
    VisibilityController,
  ],
  providers: [
    FriendsGate,
    FriendsRepository,
    FriendReadsRepository,
    FriendTagsRepository,
    FriendRequestsService,
    FriendshipsService,
    BlocksService,
    FriendTagsService,
    SuggestionsRepository,
    SuggestionsRefresher,
    SuggestionsService,
    VisibilityService,
  ],
})
export class FriendsModule {}
