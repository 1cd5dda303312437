import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { PublicRoute } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { MemberDto } from '../members/dto/member.dto';
import {
  AcceptInvitationDto,
  BulkInviteDto,
  BulkInviteResponseDto,
  CreateInvitationDto,
  DeclineInvitationDto,
  InvitationDto,
  InvitationWithGroupDto,
  ListInvitationsQueryDto,
} from './dto/invitation.dto';
import { InvitationsService } from './invitations.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('invitations')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('groups/:id/invitations')
  @ApiOperation({ operationId: 'createInvitation', summary: 'Create an invitation code, open or for one user' })
  @ApiCreatedResponse({ type: InvitationDto })
  @ApiErrors(400, 401, 404)
  create(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: CreateInvitationDto): Promise<InvitationDto> {
    return this.invitations.create(game, id, body);
  }

  @Post('groups/:id/bulk-invite')
  @HttpCode(200)
  @ApiOperation({ operationId: 'bulkInvite', summary: 'Invite up to 1000 users at once; per-row results in row order' })
  @ApiOkResponse({ type: BulkInviteResponseDto })
  @ApiErrors(400, 401, 404)
  bulkInvite(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: BulkInviteDto): Promise<BulkInviteResponseDto> {
    return this.invitations.bulkInvite(game, id, body.rows, body.invitedByUserId);
  }

  @ReplicaRead()
  @Get('groups/:id/invitations')
  @ApiOperation({ operationId: 'listInvitations', summary: 'List the invitations of a group; used and expired ones only on request' })
  @ApiPageResponse(InvitationDto)
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: ListInvitationsQueryDto): Promise<Page<InvitationDto>> {
    return this.invitations.list(game, id, query);
  }

  @Get('invitations/:code')
  @PublicRoute()
  @ApiOperation({ operationId: 'previewInvitation', summary: 'Preview a code (public, no key) with its group; does not gate on expiry' })
  @ApiOkResponse({ type: InvitationWithGroupDto })
  @ApiErrors(404)
  preview(@Param('code') code: string): Promise<InvitationWithGroupDto> {
    return this.invitations.preview(code);
  }

  @Delete('invitations/:code')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeInvitation', summary: 'Revoke an unused code; a used code is kept' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async revoke(@CurrentGame() game: GameContext, @Param('code') code: string): Promise<void> {
    await this.invitations.revoke(game, code);
  }

  @Post('invitations/:code/accept')
  @ApiOperation({ operationId: 'acceptInvitation', summary: 'Redeem a code: the user becomes an active member' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors(400, 401, 'permission_denied', 'banned', 404, 'already_member', 'group_full', 'already_in_group_of_kind', 'invitation_used', 'invitation_expired')
  accept(@CurrentGame() game: GameContext, @Param('code') code: string, @Body() body: AcceptInvitationDto): Promise<MemberDto> {
    return this.invitations.accept(game, code, body.userId);
  }

  @Post('invitations/:code/decline')
  @HttpCode(204)
  @ApiOperation({ operationId: 'declineInvitation', summary: 'Decline a code; it is used up' })
  @ApiBody({ type: DeclineInvitationDto, required: false, description: 'may be omitted; a userId, when given, must be the target of a direct invitation' })
  @ApiNoContentResponse()
  @ApiErrors(400, 401, 'permission_denied', 404, 'invitation_used', 'invitation_expired')
  async decline(@CurrentGame() game: GameContext, @Param('code') code: string, @Body() body: DeclineInvitationDto): Promise<void> {
    await this.invitations.decline(game, code, body.userId);
  }
}
