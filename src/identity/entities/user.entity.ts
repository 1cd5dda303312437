import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An internal user: a bare identity anchor with no profile data (SPEC §1.3). */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt!: Date;
}
