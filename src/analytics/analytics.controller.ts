import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { AnalyticsService } from './analytics.service';
import {
  AnalyticsWindowQueryDto,
  GroupChurnDto,
  GroupGrowthDto,
  GroupGrowthQueryDto,
  MemberActivityDto,
  PermissionUsageDto,
  RoleDistributionDto,
} from './dto/analytics.dto';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('admin: analytics')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @ReplicaRead()
  @Get('group-churn')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGroupChurn', summary: 'Tenure of departures from groups created in the window, in five bins' })
  @ApiOkResponse({ type: GroupChurnDto })
  @ApiErrors(400, 401, 404)
  groupChurn(@Param('gameId') gameId: string, @Query() query: AnalyticsWindowQueryDto): Promise<GroupChurnDto> {
    return this.analytics.groupChurn(gameId, query);
  }

  @ReplicaRead()
  @Get('group-growth')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGroupGrowth', summary: 'Active members over time of the top groups at `to`, and of all the others' })
  @ApiOkResponse({ type: GroupGrowthDto })
  @ApiErrors(400, 401, 404)
  groupGrowth(@Param('gameId') gameId: string, @Query() query: GroupGrowthQueryDto): Promise<GroupGrowthDto> {
    return this.analytics.groupGrowth(gameId, query);
  }

  @ReplicaRead()
  @Get('member-activity')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetMemberActivity', summary: 'Audit entries of the game’s groups per UTC weekday and hour (7 × 24)' })
  @ApiOkResponse({ type: MemberActivityDto })
  @ApiErrors(400, 401, 404)
  memberActivity(@Param('gameId') gameId: string, @Query() query: AnalyticsWindowQueryDto): Promise<MemberActivityDto> {
    return this.analytics.memberActivity(gameId, query);
  }

  @ReplicaRead()
  @Get('role-distribution')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetRoleDistribution', summary: 'Role assignments of active members by role name: the top 10 and the rest' })
  @ApiOkResponse({ type: RoleDistributionDto })
  @ApiErrors(401, 404)
  roleDistribution(@Param('gameId') gameId: string): Promise<RoleDistributionDto> {
    return this.analytics.roleDistribution(gameId);
  }

  @ReplicaRead()
  @Get('permission-usage')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetPermissionUsage', summary: 'Role grants and member overrides per permission key: the top 15 and the rest' })
  @ApiOkResponse({ type: PermissionUsageDto })
  @ApiErrors(401, 404)
  permissionUsage(@Param('gameId') gameId: string): Promise<PermissionUsageDto> {
    return this.analytics.permissionUsage(gameId);
  }
}
