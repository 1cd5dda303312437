import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A relationship row (SPEC §2 Friends records): a pending `request` (sender -> target), one of the
 * two `friend` rows of a friendship (owner -> friend), or a `blocked` row (blocker -> blocked).
 */
@Entity({ name: 'user_relationships' })
export class UserRelationshipEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('uuid', { name: 'other_id' }) otherId!: string;
  @Column('text', { name: 'user_external_id' }) userExternalId!: string;
  @Column('text', { name: 'other_external_id' }) otherExternalId!: string;
  @Column('text') type!: 'request' | 'friend' | 'blocked';
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'responded_at', precision: 3, nullable: true }) respondedAt!: Date | null;
}
