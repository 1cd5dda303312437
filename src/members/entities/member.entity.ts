import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A member (SPEC §2 Member): one row per (group, user), reused when the user rejoins. */
@Entity({ name: 'members' })
export class MemberEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'group_id' }) groupId!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text', { name: 'external_user_id' }) externalUserId!: string;
  @Column('text') status!: string;
  @Column('jsonb') metadata!: Record<string, unknown>;
  @Column('text', { name: 'notes_public', nullable: true }) notesPublic!: string | null;
  @Column('text', { name: 'notes_private', nullable: true }) notesPrivate!: string | null;
  @Column({ type: 'timestamptz', name: 'joined_at', precision: 3 }) joinedAt!: Date;
  @Column({ type: 'timestamptz', name: 'left_at', precision: 3, nullable: true }) leftAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'banned_until', precision: 3, nullable: true }) bannedUntil!: Date | null;
}
