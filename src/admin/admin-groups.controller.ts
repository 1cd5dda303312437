import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { GroupDto } from '../groups/dto/group.dto';
import { SearchGroupsQueryDto } from '../groups/dto/group-search.dto';
import { GroupSearchService } from '../groups/group-search.service';
import { AdminGameScope } from './admin-game-scope';
import { AdminAuditService } from './admin-audit.service';
import { AdminGroupsService } from './admin-groups.service';
import { AdminAuditPageDto, AdminAuditSearchQueryDto } from './dto/admin.dto';
import {
  AdminGroupDto,
  AdminGroupListDto,
  AdminGroupsQueryDto,
  AdminMemberListDto,
  AdminMembersQueryDto,
} from './dto/admin-groups.dto';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('admin: groups')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups')
export class AdminGroupsController {
  constructor(
    private readonly groups: AdminGroupsService,
    private readonly auditLog: AdminAuditService,
    private readonly scope: AdminGameScope,
    private readonly search: GroupSearchService,
  ) {}

  @ReplicaRead()
  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListGroups', summary: "A game's live groups: filters, sort, offset pagination with total and hasMore" })
  @ApiOkResponse({ type: AdminGroupListDto })
  @ApiErrors(400, 401, 404)
  list(@Param('gameId') gameId: string, @Query() query: AdminGroupsQueryDto): Promise<AdminGroupListDto> {
    return this.groups.list(gameId, query);
  }

  @ReplicaRead()
  @Get('search')
  @MinRole('viewer')
  @ApiOperation({
    operationId: 'adminSearchGroups',
    summary: "GET /v1/groups/search inside the path's game: the groups its players can find, same parameters and answer",
  })
  @ApiPageResponse(GroupDto)
  @ApiErrors(400, 401, 404)
  async searchGroups(@Param('gameId') gameId: string, @Query() query: SearchGroupsQueryDto): Promise<Page<GroupDto>> {
    return this.search.search(await this.scope.of(gameId), query);
  }

  @ReplicaRead()
  @Get(':groupId')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGroup', summary: 'A live group of the game' })
  @ApiOkResponse({ type: AdminGroupDto })
  @ApiErrors(401, 404)
  get(@Param('gameId') gameId: string, @Param('groupId') groupId: string): Promise<AdminGroupDto> {
    return this.groups.get(gameId, groupId);
  }

  @ReplicaRead()
  @Get(':groupId/members')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListGroupMembers', summary: "A group's members with internal ids and roles as objects, offset pagination" })
  @ApiOkResponse({ type: AdminMemberListDto })
  @ApiErrors(400, 401, 404)
  members(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Query() query: AdminMembersQueryDto,
  ): Promise<AdminMemberListDto> {
    return this.groups.members(gameId, groupId, query);
  }

  @ReplicaRead()
  @Get(':groupId/audit')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminSearchGroupAudit', summary: "Search a live group's audit log, newest first; same filters as the game audit" })
  @ApiOkResponse({ type: AdminAuditPageDto })
  @ApiErrors(400, 401, 404)
  audit(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Query() query: AdminAuditSearchQueryDto,
  ): Promise<AdminAuditPageDto> {
    return this.auditLog.forGroup(gameId, groupId, query);
  }
}
