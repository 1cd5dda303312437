import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's chosen friends-list visibility in a game; absent = the configured default. */
@Entity({ name: 'friend_settings' })
export class FriendSettingsEntity {
  @PrimaryColumn('uuid', { name: 'user_id' }) userId!: string;
  @PrimaryColumn('uuid', { name: 'game_id' }) gameId!: string;
  @Column('text', { name: 'friends_list_visibility' }) friendsListVisibility!: string;
  @Column({ type: 'timestamptz', name: 'updated_at', precision: 3 }) updatedAt!: Date;
}
