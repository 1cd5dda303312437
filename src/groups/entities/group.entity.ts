import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A group (SPEC §2 Group). `active_member_count` is kept by a trigger on members. */
@Entity({ name: 'groups' })
export class GroupEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('text') kind!: string;
  @Column('text') name!: string;
  @Column('text') visibility!: string;
  @Column('jsonb') metadata!: Record<string, unknown>;
  @Column('text', { name: 'default_role_id', nullable: true }) defaultRoleId!: string | null;
  @Column('text', { name: 'passcode_hash', nullable: true }) passcodeHash!: string | null;
  @Column('uuid', { name: 'parent_group_id', nullable: true }) parentGroupId!: string | null;
  @Column('integer', { name: 'active_member_count' }) activeMemberCount!: number;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', precision: 3 }) updatedAt!: Date;
  @Column({ type: 'timestamptz', name: 'soft_deleted_at', precision: 3, nullable: true }) softDeletedAt!: Date | null;
}
