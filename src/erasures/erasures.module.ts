import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { ErasureLedgerRepository } from './erasure-ledger.repository';
import { ErasureLedgerService } from './erasure-ledger.service';
import { ErasuresController } from './erasures.controller';

/** The erasure ledger's routes; the operator command uses the same service. */
@Module({
  imports: [UsersModule],
  controllers: [ErasuresController],
  providers: [ErasureLedgerRepository, ErasureLedgerService],
  exports: [ErasureLedgerService],
})
export class ErasuresModule {}
