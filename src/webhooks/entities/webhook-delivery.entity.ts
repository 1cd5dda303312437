import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One event for one endpoint (SPEC §3 Webhook delivery); retries repeat its id (DECISIONS §13). */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'endpoint_id' }) endpointId!: string;
  @Column('char', { name: 'event_id', length: 24 }) eventId!: string;
  @Column('text') status!: string;
  @Column('integer') attempts!: number;
  @Column({ type: 'timestamptz', name: 'next_attempt_at', precision: 3 }) nextAttemptAt!: Date;
  @Column({ type: 'timestamptz', name: 'last_attempt_at', precision: 3, nullable: true }) lastAttemptAt!: Date | null;
  /** While a claim holds the attempt; in no index, so that a claim can be a HOT update. */
  @Column({ type: 'timestamptz', name: 'lease_until', precision: 3, nullable: true }) leaseUntil!: Date | null;
  @Column('integer', { name: 'last_status', nullable: true }) lastStatus!: number | null;
  @Column('text', { name: 'last_error', nullable: true }) lastError!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'completed_at', precision: 3, nullable: true }) completedAt!: Date | null;
}
