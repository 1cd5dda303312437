import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { ReplicaRead } from '../db/replica/replica-read.decorator';
import { ListReportsQueryDto, ListReportSubjectsQueryDto, ReportDto, ReportedSubjectDto, ResolveReportDto } from './dto/report.dto';
import { ReportsService } from './reports.service';

/** The operators' side of reports (EXTENSIONS X10): moderators and up read and close them. */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/reports')
export class AdminReportsController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly reports: ReportsService,
  ) {}

  @ReplicaRead()
  @Get()
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminListReports', summary: "The game's reports, newest first, filtered by status, subject type and category" })
  @ApiPageResponse(ReportDto)
  @ApiErrors(400, 401, 404)
  async list(@Param('gameId') gameId: string, @Query() query: ListReportsQueryDto): Promise<Page<ReportDto>> {
    await this.scope.of(gameId);
    return this.reports.list(gameId, query);
  }

  @ReplicaRead()
  @Get('subjects')
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminListReportedSubjects', summary: 'The users and groups with open reports, most distinct reporters first' })
  @ApiPageResponse(ReportedSubjectDto)
  @ApiErrors(400, 401, 404)
  async subjects(@Param('gameId') gameId: string, @Query() query: ListReportSubjectsQueryDto): Promise<Page<ReportedSubjectDto>> {
    await this.scope.of(gameId);
    return this.reports.subjects(gameId, query);
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminResolveReport', summary: 'Close an open report as dismissed or actioned, with an optional note' })
  @ApiOkResponse({ type: ReportDto })
  @ApiErrors(400, 401, 404, 'report_closed')
  async resolve(@Param('gameId') gameId: string, @Param('id') id: string, @Body() body: ResolveReportDto, @Acting() by: ActingOperator): Promise<ReportDto> {
    await this.scope.of(gameId);
    return this.reports.resolve(gameId, id, body, by);
  }
}
