import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The per-game external id of an internal user; unique per game in both directions. */
@Entity({ name: 'user_identities' })
export class UserIdentityEntity {
  @PrimaryColumn('uuid', { name: 'game_id' })
  gameId!: string;

  @PrimaryColumn('text', { name: 'external_id' })
  externalId!: string;

  @Column('uuid', { name: 'user_id' })
  userId!: string;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;
}
