import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPageJson, type PageJson } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { ReadSource } from '../db/replica/read-source';
import { UnitOfWork } from '../db/unit-of-work';
import { lockUsersForWrite } from '../identity/user-lock';
import { pathUserId } from '../users/user-id';
import type { ListNotificationsQueryDto, MarkNotificationsReadDto, NotificationCountsDto, NotificationsMarkedDto } from './dto/notification.dto';
import { formatSignal, NOTIFICATIONS_CHANNEL } from './notification-channel';
import { NotificationCountsCache, type ReadCounts } from './notification-counts-cache';
import { parseKinds } from './notification-kinds';
import { notificationJson } from './notification-view';
import { NotificationsRepository } from './notifications.repository';

/**
 * A player's notifications (EXTENSIONS X9): the list, the unread counts, marking read, dismissing.
 * A player the game has never seen has none: an empty page and zero counts, and marks that count
 * nothing, never 404 (the notifications are matched on the identity, which reads never create).
 *
 * Marking read and dismissing write no audit entry: like a friend request or an invitation's
 * decline (SPEC §4), they are the player's own state, not a change to the game's groups that its
 * audit log records, and they would flood it (every screen marks as it shows). The other devices
 * hear of them through the player's stream (the `read` signal).
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly repo: NotificationsRepository,
    private readonly cache: NotificationCountsCache,
    private readonly primary: DataSource,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * The game's key and an operator (the admin twin of the route) read the same list: only the game
   * matters. The page is written as JSON here, the bytes JSON.stringify wrote of a Page of
   * NotificationDto: parsing the rows' timestamps and data only to serialise them again was about
   * a fifth of its CPU.
   */
  async list(game: Pick<GameContext, 'gameId'>, userId: string, q: ListNotificationsQueryDto): Promise<PageJson> {
    const unread = q.unread === 'true';
    const kinds = q.kinds === undefined ? undefined : parseKinds(q.kinds);
    // The filters are part of the cursor's scope: a cursor of one filter is refused under another.
    const filter = `${unread ? 'unread' : 'all'}:${kinds ? [...kinds].sort().join(',') : '*'}`;
    const scope = `notifications:${game.gameId}:${scopeDigest(pathUserId(userId))}:${scopeDigest(filter)}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.repo.page(this.readDb.ds, game.gameId, userId, { unread, kinds, after, limit });
    const userIdJson = JSON.stringify(userId);
    return toPageJson(
      rows,
      limit,
      (r) => notificationJson(r, userIdJson),
      (r) => encodeKeyset(scope, new Date(Number(r.createdAt)), r.id),
    );
  }

  /**
   * From this instance's cache (NotificationCountsCache) while no change to the player's unread
   * ones has been heard since they were read. A miss read off a replica is not kept: the signal of
   * a change may come before the replica has replayed it, and the count read after it would stay.
   * A request with a consistency token (`afterWrite`) names a write this instance may not have
   * heard of yet: it reads the database, as routed.
   */
  async counts(game: GameContext, userId: string, afterWrite: boolean): Promise<NotificationCountsDto> {
    pathUserId(userId);
    const m = this.readDb.manager;
    const read = () => this.readCounts(m, game.gameId, userId);
    if (afterWrite || m !== this.primary.manager) return (await read()).counts;
    return this.cache.get(game.gameId, userId, read);
  }

  private async readCounts(m: EntityManager, gameId: string, userId: string): Promise<ReadCounts> {
    const rows = await this.repo.unreadByKind(m, gameId, userId);
    const byKind: NotificationCountsDto['byKind'] = {};
    let unread = 0;
    for (const r of rows) {
      if (r.kind === null) continue;
      byKind[r.kind] = r.n;
      unread += r.n;
    }
    return { svcUserId: rows[0]?.svcUserId ?? null, counts: { unread, byKind } };
  }

  /**
   * Sets readAt on those still unread, idempotently: an id that is not the player's (another
   * player's, another game's, none at all) or is read already counts nothing. The streams hear
   * which were marked, with the commit.
   */
  async markRead(game: GameContext, userId: string, dto: MarkNotificationsReadDto): Promise<NotificationsMarkedDto> {
    pathUserId(userId);
    if ((dto.ids === undefined) === (dto.all === undefined)) throw ApiError.badRequest('body must hold either ids or all: true');
    const ids = dto.ids && [...new Set(dto.ids.filter(isUuid))];
    return this.uow.run(async (tx) => {
      // The erasure's order: a mark runs wholly before an erasure of the player or after it.
      await lockUsersForWrite(tx.manager, game.gameId, [userId]);
      if (ids) {
        if (!ids.length) return { marked: 0 };
        const marked = await this.repo.markIds(tx.manager, game.gameId, userId, ids);
        if (marked.svcUserId) this.cache.invalidateOnCommit(tx, game.gameId, marked.svcUserId);
        if (marked.svcUserId) tx.notify(NOTIFICATIONS_CHANNEL, formatSignal({ t: 'read', g: game.gameId, u: marked.svcUserId, ids: marked.ids }));
        return { marked: marked.ids.length };
      }
      const marked = await this.repo.markAll(tx.manager, game.gameId, userId);
      if (marked.svcUserId) {
        this.cache.invalidateOnCommit(tx, game.gameId, marked.svcUserId);
        tx.notify(NOTIFICATIONS_CHANNEL, formatSignal({ t: 'read', g: game.gameId, u: marked.svcUserId, all: true, before: marked.at.toISOString() }));
      }
      return { marked: marked.marked };
    });
  }

  /**
   * Dismisses (deletes) one of the player's notifications; 404 when it is not theirs. One dismissed
   * unread is no longer unread: the streams hear of it as of a read, so every screen's count follows.
   */
  async dismiss(game: GameContext, userId: string, id: string): Promise<void> {
    pathUserId(userId);
    if (!isUuid(id)) throw ApiError.notFound('notification');
    await this.uow.run(async (tx) => {
      await lockUsersForWrite(tx.manager, game.gameId, [userId]);
      const gone = await this.repo.dismiss(tx.manager, game.gameId, userId, id);
      if (!gone) throw ApiError.notFound('notification');
      if (!gone.wasUnread) return;
      this.cache.invalidateOnCommit(tx, game.gameId, gone.svcUserId);
      tx.notify(NOTIFICATIONS_CHANNEL, formatSignal({ t: 'read', g: game.gameId, u: gone.svcUserId, ids: [id] }));
    });
  }
}
