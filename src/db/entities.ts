import { AuditEntryEntity } from '../audit/entities/audit-entry.entity';
import { OutboxEventEntity } from '../events/entities/outbox-event.entity';
import { ApiKeyEntity } from '../games/entities/api-key.entity';
import { GameEntity } from '../games/entities/game.entity';
import { UserIdentityEntity } from '../identity/entities/user-identity.entity';
import { UserEntity } from '../identity/entities/user.entity';

/** Every mapped table; each module adds its entities here. */
export const ENTITIES = [
  GameEntity,
  ApiKeyEntity,
  UserEntity,
  UserIdentityEntity,
  AuditEntryEntity,
  OutboxEventEntity,
];
