import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One append-only audit row (SPEC §2 Audit entry). `group_id` is null for game-wide actions. */
@Entity({ name: 'audit_entries' })
@Index('audit_entries_game_order', ['gameId', 'createdAt', 'id'])
export class AuditEntryEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'game_id' })
  gameId!: string;

  @Column('uuid', { name: 'group_id', nullable: true })
  groupId!: string | null;

  @Column('uuid', { name: 'actor_user_id', nullable: true })
  actorUserId!: string | null;

  @Column('text')
  action!: string;

  @Column('text', { name: 'target_id', nullable: true })
  targetId!: string | null;

  @Column('jsonb')
  payload!: Record<string, unknown>;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;
}
