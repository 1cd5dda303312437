import { Module } from '@nestjs/common';
import { ErasuresModule } from '../erasures/erasures.module';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';

/** The ledger of removed access, for the operator command (`ledger export`, `ledger apply`). */
@Module({
  imports: [ErasuresModule],
  providers: [LedgerRepository, LedgerService],
  exports: [LedgerService],
})
export class LedgerModule {}
