import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A tenant (SPEC §1.1). `config` holds only what an operator set; defaults apply at read time. */
@Entity({ name: 'games' })
export class GameEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text', { name: 'network_id', nullable: true })
  networkId!: string | null;

  @Column('jsonb')
  config!: Record<string, unknown>;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at', precision: 3 })
  updatedAt!: Date;
}
