import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A tag attached to the owner-side friend row. */
@Entity({ name: 'friend_tag_links' })
export class FriendTagLinkEntity {
  @PrimaryColumn('uuid', { name: 'relationship_id' }) relationshipId!: string;
  @PrimaryColumn('uuid', { name: 'tag_id' }) tagId!: string;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
}
