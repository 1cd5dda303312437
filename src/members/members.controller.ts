import { Body, Controller, Get, Header, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { JoinGroupDto, KickDto, ListMembersQueryDto, MemberDto, UpdateMemberDto, UserIdBodyDto, UserMembersQueryDto } from './dto/member.dto';
import { MembersService } from './members.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('members')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Post('groups/:id/join')
  @ApiOperation({ operationId: 'joinGroup', summary: 'Join a public group (passcode when it has one)' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors(400, 401, 'permission_denied', 'banned', 'passcode_required', 'passcode_invalid', 404, 'already_member', 'group_full', 'already_in_group_of_kind')
  join(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: JoinGroupDto): Promise<MemberDto> {
    return this.members.join(game, id, body);
  }

  @Post('groups/:id/leave')
  @HttpCode(200)
  @ApiOperation({ operationId: 'leaveGroup', summary: 'Leave a group; only an active member changes, others come back unchanged; the owner only as its last active member' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'owner_must_transfer')
  leave(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: UserIdBodyDto): Promise<MemberDto> {
    return this.members.leave(game, id, body.userId);
  }

  @Post('groups/:id/members/:userId/kick')
  @HttpCode(200)
  @ApiOperation({ operationId: 'kickMember', summary: 'Kick a member (idempotent on members who are not active); the owner only as its last active member' })
  @ApiBody({ type: KickDto, required: false, description: 'may be omitted (or `{}`): no reason is recorded' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'owner_must_transfer')
  kick(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Body() body: KickDto,
  ): Promise<MemberDto> {
    return this.members.kick(game, id, userId, body);
  }

  @ReplicaRead()
  @Get('groups/:id/members')
  @ApiOperation({ operationId: 'listMembers', summary: 'List the members of a group, latest joiners first; filter by status' })
  @ApiPageResponse(MemberDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: ListMembersQueryDto): Promise<PageJson> {
    return this.members.list(game, id, query);
  }

  @ReplicaRead()
  @Get('groups/:id/members/:userId')
  @ApiOperation({ operationId: 'getGroupMember', summary: 'The member row of a user in a group, whatever its status' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(401, 404)
  getInGroup(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string): Promise<MemberDto> {
    return this.members.getInGroup(game, id, userId);
  }

  @Patch('groups/:id/members/:userId')
  @ApiOperation({ operationId: 'updateMember', summary: 'Update member metadata and notes' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404)
  update(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Body() body: UpdateMemberDto,
  ): Promise<MemberDto> {
    return this.members.update(game, id, userId, body);
  }

  @ReplicaRead()
  @Get('members/:id')
  @ApiOperation({ operationId: 'getMember', summary: 'A member by id' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<MemberDto> {
    return this.members.get(game, id);
  }

  @ReplicaRead()
  @Get('users/:userId/members')
  @ApiOperation({ operationId: 'listUserMemberships', summary: "A user's memberships in live groups, latest first (bare array, at most 1000)" })
  @ApiOkResponse({ type: [MemberDto] })
  @ApiErrors(400, 401)
  forUser(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: UserMembersQueryDto): Promise<MemberDto[]> {
    return this.members.forUser(game, userId, query.gameId);
  }
}
