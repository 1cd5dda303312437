import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from '../common/auth/route-auth.decorator';
import { LivenessDto, ReadinessDto } from './health.dto';
import { HealthService } from './health.service';
import { INTERFACE_VERSION, RELEASE } from '../version';


type StatusSettable = { status(code: number): unknown };

@ApiTags('health')
@PublicRoute()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness; touches no database' })
  @ApiOkResponse({ type: LivenessDto })
  liveness(): LivenessDto {
    return { name: 'guildhall', version: INTERFACE_VERSION, release: RELEASE };
  }

  @Get('healthz')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: database ping (2 s) and webhook worker heartbeat (60 s)' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'status degraded, with a reason per failing component' })
  async readiness(@Res({ passthrough: true }) res: StatusSettable): Promise<ReadinessDto> {
    const report = await this.health.readiness();
    if (report.status !== 'ok') res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return report;
  }
}
