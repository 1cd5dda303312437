import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A private per-owner label for friends (SPEC §2 Friends records). */
@Entity({ name: 'friend_tags' })
export class FriendTagEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text') name!: string;
  @Column('text', { nullable: true }) color!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', precision: 3 }) updatedAt!: Date;
}
