import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BansService } from '../bans/bans.service';
import { BanDto, ListBansQueryDto } from '../bans/dto/ban.dto';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { AdminGameScope } from './admin-game-scope';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

/** A group's banned members need no route of their own: the admin members list takes status=banned. */
@ApiTags('admin: bans')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/bans')
export class AdminBansController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly bans: BansService,
  ) {}

  @ReplicaRead()
  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListBans', summary: "The game's game-wide bans in force, newest first, as GET /v1/bans answers them" })
  @ApiPageResponse(BanDto)
  @ApiErrors(400, 401, 404)
  async list(@Param('gameId') gameId: string, @Query() query: ListBansQueryDto): Promise<Page<BanDto>> {
    return this.bans.list(await this.scope.of(gameId), query);
  }
}
