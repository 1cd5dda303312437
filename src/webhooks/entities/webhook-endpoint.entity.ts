import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A webhook endpoint of a game (SPEC §2). The secret signs deliveries, so it is kept as given. */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'game_id' }) gameId!: string;
  @Column('text') url!: string;
  @Column('text', { array: true }) events!: string[];
  @Column('text') format!: string;
  @Column('text') secret!: string;
  /** The secret a rotation replaced: it signs too until previous_secret_expires_at, then is cleared. */
  @Column('text', { name: 'previous_secret', nullable: true }) previousSecret!: string | null;
  @Column({ type: 'timestamptz', name: 'previous_secret_expires_at', precision: 3, nullable: true }) previousSecretExpiresAt!: Date | null;
  @Column('integer', { name: 'consecutive_failures' }) consecutiveFailures!: number;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'disabled_at', precision: 3, nullable: true }) disabledAt!: Date | null;
}
