import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ApiKeyScope } from '../../common/auth/api-key-scopes';

/** An API key of one game (SPEC §5): the prefix in plain form, the secret only as SHA-256. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'game_id' })
  gameId!: string;

  @Column('text')
  prefix!: string;

  @Column('bytea', { name: 'secret_hash' })
  secretHash!: Buffer;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'revoked_at', precision: 3, nullable: true })
  revokedAt!: Date | null;

  @Column('text', { array: true })
  scopes!: ApiKeyScope[];

  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3, nullable: true })
  expiresAt!: Date | null;

  @Column('text', { nullable: true })
  name!: string | null;

  /** Written by ApiKeyUses, once a minute at most, never on a request's own path. */
  @Column({ type: 'timestamptz', name: 'last_used_at', precision: 3, nullable: true })
  lastUsedAt!: Date | null;
}
