import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { toBanDto } from '../bans/ban-view';
import { ApiError } from '../common/errors/api-error';
import { invalidCursor } from '../common/pagination/cursor-codec';
import { instant, uuid } from '../common/pagination/cursor-fields';
import { cursorShape } from '../common/pagination/cursor-shape';
import type { Keyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage } from '../common/pagination/page';
import { isoNN } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { transaction } from '../db/transaction';
import { GamesService } from '../games/games.service';
import type { AdminUserMembershipRow, AdminUserRow } from './admin-rows';
import { AdminUsersRepository } from './admin-users.repository';
import { toAdminUserMembership } from './admin-view';
import { ADMIN_USER_ID_MAX, type AdminUserDto, type AdminUserQueryDto } from './dto/admin-users.dto';

/** A page of memberships, as keyset lists page by default (SPEC §8), up to the page cap. */
const MEMBERSHIPS_DEFAULT_LIMIT = 50;

/** Where a memberships cursor resumes: after a membership of one internal user. */
interface MembershipCursor extends Keyset {
  svcUserId: string;
}

/** The operator's page of one user in one game: who they are there, their groups, bans and friends graph. */
@Injectable()
export class AdminUsersService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: AdminUsersRepository,
    private readonly games: GamesService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async get(gameId: string, externalUserId: string, q: AdminUserQueryDto): Promise<AdminUserDto> {
    if (externalUserId.length < 1 || externalUserId.length > ADMIN_USER_ID_MAX) {
      throw ApiError.badRequest(`userId must be a string of 1-${ADMIN_USER_ID_MAX} characters`);
    }
    await this.games.requireGame(gameId);
    const limit = parsePageLimit(q.limit, MEMBERSHIPS_DEFAULT_LIMIT, this.settings.maxPageSize);
    const scope = `user-memberships:${gameId}`;
    const after = decodeMembershipCursor(q.cursor, scope);
    // One snapshot for the whole page: the counts and the memberships agree.
    const found = await transaction(this.ds, async (m) => {
      await m.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const user = await this.repo.find(m, gameId, externalUserId);
      if (!user) return null;
      if (after && after.svcUserId !== user.svcUserId) throw invalidCursor();
      return { user, rows: await this.repo.memberships(m, gameId, user.svcUserId, after, limit) };
    });
    if (!found) throw ApiError.notFound('user');
    const { user, rows } = found;
    const memberships = toPage(rows, limit, toAdminUserMembership, (r: AdminUserMembershipRow) =>
      MEMBERSHIP_CURSOR.encode(scope, [user.svcUserId, r.joinedAt, r.memberId]),
    );
    return {
      gameId,
      userId: user.userId,
      svcUserId: user.svcUserId,
      firstSeenAt: isoNN(user.firstSeenAt),
      memberships,
      gameBan: gameBanOf(gameId, user),
      groupBans: user.groupBans,
      friendsCount: user.friendsCount,
      requestsSent: user.requestsSent,
      requestsReceived: user.requestsReceived,
      blocks: user.blocks,
      blockedBy: user.blockedBy,
    };
  }
}

/** The user's internal id, then the membership's joinedAt and id. */
const MEMBERSHIP_CURSOR = cursorShape(uuid, instant, uuid);

/** A cursor this route issued for this game; whose user it belongs to is checked once the user is found. */
function decodeMembershipCursor(cursor: string | undefined, scope: string): MembershipCursor | undefined {
  if (cursor === undefined) return undefined;
  const [svcUserId, at, id] = MEMBERSHIP_CURSOR.decode(cursor, scope);
  return { svcUserId, at, id };
}

/** The game ban in force, as GET /v1/bans/{userId} answers it; an expired one reads as none. */
function gameBanOf(gameId: string, u: AdminUserRow) {
  if (u.banId === null || u.banExpired) return null;
  return toBanDto({
    id: u.banId,
    gameId,
    svcUserId: u.svcUserId,
    userId: u.banUserId ?? u.userId,
    bannedAt: u.banBannedAt as Date,
    expiresAt: u.banExpiresAt,
    reason: u.banReason,
    bannedBy: u.banBannedBy,
    expired: false,
  });
}
