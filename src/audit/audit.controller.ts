import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { AuditService } from './audit.service';
import { AuditEntryDto, GroupAuditQueryDto } from './dto/audit.dto';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('audit')
@ApiBearerAuth('apiKey')
@Controller('v1/groups/:id/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'listGroupAudit', summary: "A group's audit log, newest first; nextCursor is the id of the last entry" })
  @ApiPageResponse(AuditEntryDto)
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: GroupAuditQueryDto): Promise<Page<AuditEntryDto>> {
    return this.audit.forGroup(game, id, query);
  }
}
