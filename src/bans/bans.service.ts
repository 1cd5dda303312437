import { Inject, Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import { recordOperatorAction } from '../operators/operator-audit';
import type { BanHistoryRow, BanRow } from './ban-rows';
import { toBanDto, toHistoryDto } from './ban-view';
import { BansRepository } from './bans.repository';
import type { BanDto, BanHistoryEntryDto, BanHistoryQueryDto, CreateBanDto, ListBansQueryDto } from './dto/ban.dto';
import { ReadSource } from '../db/replica/read-source';

/** Game-wide bans (SPEC §3 Game-wide ban, §4 Game-wide bans) and the ban history of both scopes. */
@Injectable()
export class BansService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly bans: BansRepository,
    private readonly identity: IdentityService,
    private readonly joinRequests: JoinRequestCloser,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Sets or re-sets a ban; every explicit set writes history and fires the event (DECISIONS §12).
   * `by`: the operator of an admin request, recorded in the operator audit.
   */
  async ban(game: Pick<GameContext, 'gameId'>, dto: CreateBanDto, by?: ActingOperator): Promise<BanDto> {
    return this.uow.run(async (tx) => {
      const svcUserId = await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.userId);
      const actorSvcId = dto.actorUserId ? await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.actorUserId) : null;
      const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
      const reason = dto.reason ?? null;
      const row = await this.bans.upsert(tx.manager, {
        gameId: game.gameId,
        svcUserId,
        userId: dto.userId,
        expiresAt,
        reason,
        bannedBy: dto.actorUserId ?? null,
      });
      const out = toBanDto(row);
      await this.bans.addHistory(tx.manager, {
        gameId: game.gameId,
        svcUserId,
        userId: dto.userId,
        scope: 'game',
        groupId: null,
        kind: 'set',
        reason,
        expiresAt,
        actorUserId: dto.actorUserId ?? null,
      });
      tx.audit({
        gameId: game.gameId,
        actorUserId: actorSvcId,
        action: 'game.user.banned',
        targetId: dto.userId,
        payload: { banId: row.id, reason, expiresAt: out.expiresAt },
      });
      tx.emit({ type: 'game.user.banned', gameId: game.gameId, data: { svcUserId: dto.userId, reason, expiresAt: out.expiresAt } });
      // A ban set already lapsed keeps nobody out, so it closes nothing either.
      if (!row.expired) await this.joinRequests.banned(tx, game.gameId, null, svcUserId, actorSvcId);
      if (by) {
        await recordOperatorAction(tx.manager, by, { action: 'game.ban_added', gameId: game.gameId, targetId: dto.userId, details: { banId: row.id, reason, expiresAt: out.expiresAt } });
      }
      return out;
    });
  }

  /** Lifts an active ban: the row goes (DECISIONS §21), the history keeps both rows. */
  async lift(game: Pick<GameContext, 'gameId'>, userId: string, by?: ActingOperator): Promise<void> {
    await this.uow.run(async (tx) => {
      const svcUserId = await this.identity.find(tx.manager, game.gameId, userId);
      const ban = svcUserId ? await this.bans.find(tx.manager, game.gameId, svcUserId, true) : null;
      if (!ban || ban.expired || !svcUserId) throw ApiError.notFound('ban');
      await this.bans.delete(tx.manager, ban.id);
      await this.bans.addHistory(tx.manager, {
        gameId: game.gameId,
        svcUserId,
        userId,
        scope: 'game',
        groupId: null,
        kind: 'lifted',
        reason: null,
        expiresAt: null,
        actorUserId: null,
      });
      tx.audit({ gameId: game.gameId, action: 'game.user.unbanned', targetId: userId, payload: { banId: ban.id } });
      tx.emit({ type: 'game.user.unbanned', gameId: game.gameId, data: { svcUserId: userId } });
      if (by) await recordOperatorAction(tx.manager, by, { action: 'game.ban_removed', gameId: game.gameId, targetId: userId, details: { banId: ban.id } });
    });
  }

  /** The ban in force; an expired one reads as none (lazy expiry). */
  async get(game: GameContext, userId: string): Promise<BanDto> {
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    const ban = svcUserId ? await this.bans.find(this.readDb.ds.manager, game.gameId, svcUserId) : null;
    if (!ban || ban.expired) throw ApiError.notFound('ban');
    return toBanDto(ban);
  }

  async list(game: Pick<GameContext, 'gameId'>, q: ListBansQueryDto): Promise<Page<BanDto>> {
    const scope = `bans:${game.gameId}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.bans.list(this.readDb.ds.manager, game.gameId, { includeExpired: q.includeExpired === 'true', after, limit });
    return toPage(rows, limit, toBanDto, (b: BanRow) => encodeKeyset(scope, b.bannedAt, b.id));
  }

  async history(game: GameContext, userId: string, q: BanHistoryQueryDto): Promise<Page<BanHistoryEntryDto>> {
    if (q.groupId !== undefined && q.scope === 'game') throw ApiError.badRequest('groupId cannot be combined with scope=game');
    if (q.groupId !== undefined && !isUuid(q.groupId)) throw ApiError.badRequest('groupId must be a group id');
    const scopeFilter = q.groupId !== undefined ? 'group' : q.scope;
    const cursorScope = `ban-history:${game.gameId}:${scopeDigest(userId)}:${scopeFilter ?? 'all'}:${q.groupId ?? ''}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, cursorScope);
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    if (!svcUserId) return { items: [], nextCursor: null };
    const rows = await this.bans.history(this.readDb.ds.manager, game.gameId, svcUserId, { scope: scopeFilter, groupId: q.groupId, after, limit });
    return toPage(rows, limit, toHistoryDto, (h: BanHistoryRow) => encodeKeyset(cursorScope, h.eventAt, h.id));
  }
}
