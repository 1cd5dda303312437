import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { GroupDto } from './dto/group.dto';
import { SearchGroupsQueryDto } from './dto/group-search.dto';
import { GroupSearchService } from './group-search.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

/** GET /v1/groups/search: a static path, which the router matches before /v1/groups/:id. */
@ApiTags('groups')
@ApiBearerAuth('apiKey')
@Controller('v1/groups')
export class GroupSearchController {
  constructor(private readonly groups: GroupSearchService) {}

  @ReplicaRead()
  @Get('search')
  @ApiOperation({
    operationId: 'searchGroups',
    summary: 'Find groups a player can see (never secret or deleted): by words of the name, kind, tags, open, member count; four orders',
  })
  @ApiPageResponse(GroupDto)
  @ApiErrors(400, 401)
  search(@CurrentGame() game: GameContext, @Query() query: SearchGroupsQueryDto): Promise<Page<GroupDto>> {
    return this.groups.search(game, query);
  }
}
