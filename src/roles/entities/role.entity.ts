import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A role of a group (SPEC §2 Role); its name is unique within the group. */
@Entity({ name: 'roles' })
export class RoleEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'group_id' }) groupId!: string;
  @Column('text') name!: string;
  @Column('integer') priority!: number;
  @Column('text', { nullable: true }) color!: string | null;
  @Column('boolean', { name: 'is_default' }) isDefault!: boolean;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
}
