import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's request to join an invite-only group (EXTENSIONS X3); at most one pending per (group, user). */
@Entity({ name: 'join_requests' })
export class JoinRequestEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('uuid', { name: 'group_id' }) groupId!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text', { name: 'external_user_id' }) externalUserId!: string;
  @Column('text', { nullable: true }) message!: string | null;
  @Column('text') status!: string;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'decided_at', precision: 3, nullable: true }) decidedAt!: Date | null;
  @Column('text', { name: 'decided_by_user_id', nullable: true }) decidedByUserId!: string | null;
}
