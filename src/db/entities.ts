import { ApiKeyEntity } from '../games/entities/api-key.entity';
import { GameEntity } from '../games/entities/game.entity';
import { GroupEntity } from '../groups/entities/group.entity';
import { InvitationEntity } from '../invitations/entities/invitation.entity';
import { JoinRequestEntity } from '../join-requests/entities/join-request.entity';
import { MemberEntity } from '../members/entities/member.entity';
import { RoleEntity } from '../roles/entities/role.entity';
import { WebhookDeliveryAttemptEntity } from '../webhooks/entities/webhook-delivery-attempt.entity';
import { WebhookDeliveryEntity } from '../webhooks/entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../webhooks/entities/webhook-endpoint.entity';
import { UserIdentityEntity } from '../identity/entities/user-identity.entity';
import { UserEntity } from '../identity/entities/user.entity';
import { FriendSettingsEntity } from '../friends/entities/friend-settings.entity';
import { FriendTagLinkEntity } from '../friends/entities/friend-tag-link.entity';
import { FriendTagEntity } from '../friends/entities/friend-tag.entity';
import { UserRelationshipEntity } from '../friends/entities/user-relationship.entity';

/** Every mapped table; each module adds its entities here. */
export const ENTITIES = [
  GameEntity,
  ApiKeyEntity,
  UserEntity,
  UserIdentityEntity,
  GroupEntity,
  MemberEntity,
  InvitationEntity,
  JoinRequestEntity,
  RoleEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookDeliveryAttemptEntity,
  UserRelationshipEntity,
  FriendTagEntity,
  FriendTagLinkEntity,
  FriendSettingsEntity,
];
