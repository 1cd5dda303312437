import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One attempt of a delivery, as the delivery log shows it; written with the attempt's result. */
@Entity({ name: 'webhook_delivery_attempts' })
export class WebhookDeliveryAttemptEntity {
  @PrimaryColumn('uuid', { name: 'delivery_id' }) deliveryId!: string;
  @PrimaryColumn('integer') number!: number;
  @Column({ type: 'timestamptz', name: 'attempted_at', precision: 3 }) attemptedAt!: Date;
  @Column('integer', { name: 'status_code', nullable: true }) statusCode!: number | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('integer', { name: 'duration_ms' }) durationMs!: number;
}
