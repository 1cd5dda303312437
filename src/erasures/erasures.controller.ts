import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { ApplyErasuresDto, ApplyErasuresResultDto, ErasureEntryDto, ListErasuresQueryDto } from './dto/erasure.dto';
import { ErasureLedgerService } from './erasure-ledger.service';

/** The erasure ledger (EXTENSIONS X7), across games: exported to be kept apart, applied after a restore. */
@ApiTags('admin: erasures')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/erasures')
export class ErasuresController {
  constructor(private readonly ledger: ErasureLedgerService) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({
    operationId: 'adminListErasures',
    summary: 'The recorded erasures, oldest first: one-way hashes of the erased ids, never the ids',
    description: 'Export it regularly and keep it outside the database backups: after a restore, POST it to /v1/admin/erasures/apply.',
  })
  @ApiPageResponse(ErasureEntryDto)
  @ApiErrors(400, 401)
  list(@Query() query: ListErasuresQueryDto): Promise<Page<ErasureEntryDto>> {
    return this.ledger.list(query);
  }

  @Post('apply')
  @MinRole('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminApplyErasures',
    summary: 'Re-apply ledger entries: every user of their game whose id hashes to an entry is erased again',
    description:
      'Run right after a restore, before traffic: users restored from the backup, or new since under an erased id, are erased. ' +
      'One transaction; a malformed entry anywhere is 400 and nothing is applied. The ledger gains the entries it lacked.',
  })
  @ApiOkResponse({ type: ApplyErasuresResultDto })
  @ApiErrors(400, 401)
  apply(@Body() body: ApplyErasuresDto, @Acting() by: ActingOperator): Promise<ApplyErasuresResultDto> {
    return this.ledger.apply(body.items, by);
  }
}
