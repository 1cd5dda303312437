import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An invitation code (SPEC §2 Invitation): consumed atomically, up to `max_uses` times (EXTENSIONS X4). */
@Entity({ name: 'invitations' })
export class InvitationEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'group_id' }) groupId!: string;
  /** The group's game, kept on the invitation for the inbox's index (EXTENSIONS X6). */
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('char', { length: 16 }) code!: string;
  @Column('text', { name: 'role_id', nullable: true }) roleId!: string | null;
  @Column('text', { name: 'target_user_id', nullable: true }) targetUserId!: string | null;
  @Column('text', { name: 'invited_by_user_id', nullable: true }) invitedByUserId!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3, nullable: true }) expiresAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'used_at', precision: 3, nullable: true }) usedAt!: Date | null;
  @Column('uuid', { name: 'used_by', nullable: true }) usedBy!: string | null;
  @Column('integer', { name: 'max_uses' }) maxUses!: number;
  @Column('integer') uses!: number;
}
