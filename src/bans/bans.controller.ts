import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { MemberDto } from '../members/dto/member.dto';
import { BansService } from './bans.service';
import { BanDto, BanHistoryEntryDto, BanHistoryQueryDto, CreateBanDto, GroupBanDto, ListBansQueryDto } from './dto/ban.dto';
import { GroupBansService } from './group-bans.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('bans')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class BansController {
  constructor(
    private readonly bans: BansService,
    private readonly groupBans: GroupBansService,
  ) {}

  @Post('bans')
  @ApiOperation({ operationId: 'banUser', summary: 'Ban a user game-wide (unknown body fields are refused)' })
  @ApiCreatedResponse({ type: BanDto })
  @ApiErrors(400, 401)
  ban(@CurrentGame() game: GameContext, @Body() body: CreateBanDto): Promise<BanDto> {
    return this.bans.ban(game, body);
  }

  @ReplicaRead()
  @Get('bans')
  @ApiOperation({ operationId: 'listBans', summary: 'Game-wide bans in force, newest first; expired ones with includeExpired=true' })
  @ApiPageResponse(BanDto)
  @ApiErrors(400, 401)
  list(@CurrentGame() game: GameContext, @Query() query: ListBansQueryDto): Promise<Page<BanDto>> {
    return this.bans.list(game, query);
  }

  @ReplicaRead()
  @Get('bans/:userId')
  @ApiOperation({ operationId: 'getBan', summary: "A user's game-wide ban in force" })
  @ApiOkResponse({ type: BanDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<BanDto> {
    return this.bans.get(game, userId);
  }

  @Delete('bans/:userId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'liftBan', summary: 'Lift a game-wide ban in force' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async lift(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<void> {
    await this.bans.lift(game, userId);
  }

  @ReplicaRead()
  @Get('bans/:userId/history')
  @ApiOperation({ operationId: 'getBanHistory', summary: "A user's ban history at both scopes, newest first" })
  @ApiPageResponse(BanHistoryEntryDto)
  @ApiErrors(400, 401)
  history(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: BanHistoryQueryDto): Promise<Page<BanHistoryEntryDto>> {
    return this.bans.history(game, userId, query);
  }

  @Post('groups/:id/bans')
  @ApiOperation({ operationId: 'banFromGroup', summary: 'Ban a user from a group (a non-member gets a banned member row); the owner only as its last active member' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'owner_must_transfer')
  banFromGroup(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: GroupBanDto): Promise<MemberDto> {
    return this.groupBans.ban(game, id, body);
  }

  @Delete('groups/:id/bans/:userId')
  @ApiOperation({ operationId: 'unbanFromGroup', summary: 'Lift a group ban: the member is left' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(401, 404)
  unbanFromGroup(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string): Promise<MemberDto> {
    return this.groupBans.unban(game, id, userId);
  }
}
