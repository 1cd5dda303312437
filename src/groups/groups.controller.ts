import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { CreateGroupDto, DeleteGroupQueryDto, GroupDto, ListGroupsQueryDto, SetOwnerDto, SetParentDto, UpdateGroupDto, ViewerQueryDto } from './dto/group.dto';
import { GroupOwnerService } from './group-owner.service';
import { GroupsService } from './groups.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

type StatusSettable = { status(code: number): unknown };

@ApiTags('groups')
@ApiBearerAuth('apiKey')
@Controller('v1/groups')
export class GroupsController {
  constructor(
    private readonly groups: GroupsService,
    private readonly owner: GroupOwnerService,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'createGroup', summary: 'Create a group; with creatorUserId the creator joins in the same transaction' })
  @ApiCreatedResponse({ type: GroupDto })
  @ApiErrors(400, 401, 'name_not_allowed', 'already_in_group_of_kind')
  create(@CurrentGame() game: GameContext, @Body() body: CreateGroupDto): Promise<GroupDto> {
    return this.groups.create(game, body);
  }

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'listGroups', summary: 'List groups, newest first; viewer hides secret groups they are not in' })
  @ApiPageResponse(GroupDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401)
  list(@CurrentGame() game: GameContext, @Query() query: ListGroupsQueryDto): Promise<PageJson> {
    return this.groups.list(game, query);
  }

  @ReplicaRead()
  @Get(':id')
  @ApiOperation({ operationId: 'getGroup', summary: 'Get a group; with viewer, a secret group is 404 unless they are an active member' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: ViewerQueryDto): Promise<GroupDto> {
    return this.groups.get(game, id, query.viewer);
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'updateGroup', summary: 'Update a group; a no-op changes nothing and writes no audit' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(400, 401, 404, 'name_not_allowed')
  update(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: UpdateGroupDto): Promise<GroupDto> {
    return this.groups.update(game, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteGroup', summary: 'Soft-delete a group (restorable for 7 days), or with hard=true remove it for good' })
  @ApiOkResponse({ type: GroupDto, description: 'soft delete' })
  @ApiNoContentResponse({ description: 'hard delete' })
  @ApiErrors(401, 404)
  async delete(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Query() query: DeleteGroupQueryDto,
    @Res({ passthrough: true }) res: StatusSettable,
  ): Promise<GroupDto | undefined> {
    const group = await this.groups.delete(game, id, query.hard === 'true');
    if (group) return group;
    res.status(204);
    return undefined;
  }

  @Post(':id/restore')
  @HttpCode(200)
  @ApiOperation({ operationId: 'restoreGroup', summary: 'Restore a soft-deleted group within 7 days' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(401, 404, 'restore_window_expired')
  restore(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<GroupDto> {
    return this.groups.restore(game, id);
  }

  @Put(':id/parent')
  @ApiOperation({ operationId: 'setGroupParent', summary: 'Set (or with null clear) the parent group; cycles are refused' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(400, 'parent_cycle', 401, 404)
  setParent(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: SetParentDto): Promise<GroupDto> {
    return this.groups.setParent(game, id, body.parentGroupId);
  }

  @Post(':id/owner')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'setGroupOwner',
    summary: "Make an active member the group's owner; naming the current owner again changes nothing",
  })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(400, 401, 404, 'not_a_member')
  setOwner(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: SetOwnerDto): Promise<GroupDto> {
    return this.owner.set(game, id, body);
  }

  @ReplicaRead()
  @Get(':id/children')
  @ApiOperation({ operationId: 'listChildGroups', summary: 'List the live child groups, newest first' })
  @ApiPageResponse(GroupDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401, 404)
  children(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: ListGroupsQueryDto): Promise<PageJson> {
    return this.groups.children(game, id, query);
  }
}
