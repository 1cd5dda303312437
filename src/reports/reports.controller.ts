import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { CreateReportDto, ReportDto } from './dto/report.dto';
import { ReportsService } from './reports.service';

type StatusSettable = { status(code: number): unknown };

@ApiTags('reports')
@ApiBearerAuth('apiKey')
@Controller('v1/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Post()
  @ApiOperation({
    operationId: 'fileReport',
    summary: 'A player reports a user or a group of the game; the same open report again answers 200 with it; at most 20 a reporter per hour',
  })
  @ApiCreatedResponse({ type: ReportDto, description: 'report filed' })
  @ApiOkResponse({ type: ReportDto, description: 'the reporter already holds an open report on this subject: that one' })
  @ApiErrors(400, 401, 404, 'rate_limited')
  async file(@CurrentGame() game: GameContext, @Body() body: CreateReportDto, @Res({ passthrough: true }) res: StatusSettable): Promise<ReportDto> {
    const { report, created } = await this.reports.file(game, body);
    res.status(created ? 201 : 200);
    return report;
  }
}
