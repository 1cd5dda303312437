import { Global, Module } from '@nestjs/common';
import { OPERATOR_LOOKUP } from '../common/auth/operator-lookup';
import { OperatorsController } from './operators.controller';
import { OperatorsRepository } from './operators.repository';
import { OperatorsService } from './operators.service';

/** Named operators, their roles and audit; the auth guard resolves operator tokens through it. */
@Global()
@Module({
  controllers: [OperatorsController],
  providers: [OperatorsRepository, OperatorsService, { provide: OPERATOR_LOOKUP, useExisting: OperatorsService }],
  exports: [OPERATOR_LOOKUP],
})
export class OperatorsModule {}
