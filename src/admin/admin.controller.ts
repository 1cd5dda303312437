import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { AdminAuditService } from './admin-audit.service';
import { AdminService } from './admin.service';
import {
  AdminAuditListDto,
  AdminAuditPageDto,
  AdminAuditQueryDto,
  AdminAuditSearchQueryDto,
  AdminStatsDto,
} from './dto/admin.dto';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('admin: stats and audit')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly audit: AdminAuditService,
  ) {}

  @ReplicaRead()
  @Get('stats')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetStats', summary: 'Service-wide totals: games, live groups, their active members, audit entries of the last 24 h' })
  @ApiOkResponse({ type: AdminStatsDto })
  @ApiErrors(401)
  stats(): Promise<AdminStatsDto> {
    return this.admin.stats();
  }

  @ReplicaRead()
  @Get('audit')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListLatestAudit', summary: 'The newest audit entries across every game, with game and group names' })
  @ApiOkResponse({ type: AdminAuditListDto })
  @ApiErrors(400, 401)
  latestAudit(@Query() query: AdminAuditQueryDto): Promise<AdminAuditListDto> {
    return this.audit.latest(query);
  }

  @ReplicaRead()
  @Get('games/:gameId/audit')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminSearchGameAudit', summary: "Search a game's audit log, newest first; filters are AND-combined" })
  @ApiOkResponse({ type: AdminAuditPageDto })
  @ApiErrors(400, 401, 404)
  gameAudit(@Param('gameId') gameId: string, @Query() query: AdminAuditSearchQueryDto): Promise<AdminAuditPageDto> {
    return this.audit.forGame(gameId, query);
  }
}
