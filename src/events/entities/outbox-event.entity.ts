import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An event staged in the transaction of the mutation that caused it (SPEC §1.6). It is published
 * only once that transaction commits, and kept for a retention window afterwards.
 */
@Entity({ name: 'outbox_events' })
export class OutboxEventEntity {
  @PrimaryColumn('char', { length: 24 })
  id!: string;

  @Column('uuid', { name: 'game_id' })
  gameId!: string;

  @Column('uuid', { name: 'group_id', nullable: true })
  groupId!: string | null;

  @Column('text')
  type!: string;

  @Column('jsonb')
  body!: Record<string, unknown>;

  /** The W3C trace context of the request that wrote the event, while traces are on. */
  @Column('jsonb', { name: 'trace_context', nullable: true })
  traceContext!: Record<string, string> | null;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;
}
