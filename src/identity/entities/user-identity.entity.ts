import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The external id of an internal user in one game: one per (user, game), and unique per game
 * (through the index on its SHA-256, since ids have no length cap).
 */
@Entity({ name: 'user_identities' })
export class UserIdentityEntity {
  @PrimaryColumn('uuid', { name: 'user_id' })
  userId!: string;

  @PrimaryColumn('uuid', { name: 'game_id' })
  gameId!: string;

  @Column('text', { name: 'external_id' })
  externalId!: string;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;
}
