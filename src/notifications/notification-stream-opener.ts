import { Injectable } from '@nestjs/common';
import { GameReads } from '../common/bulkhead/game-reads';
import { ApiError } from '../common/errors/api-error';
import { nodeObjects } from '../common/http/node-objects';
import { isUuid } from '../common/ids';
import { pathUserId } from '../users/user-id';
import { NotificationStreams } from './notification-streams';

/** Where a stream request resumes: the query's `after`, else the `Last-Event-ID` header a reconnecting client sends. */
export interface NotificationStreamStart {
  after?: string;
  lastEventId?: string;
}

/** A resume id must look like a notification id (a uuid); whether it still names one of the player's is checked later (410). */
export function parseNotificationId(raw: unknown, field: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = (Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw)).toLowerCase();
  if (!isUuid(text)) throw ApiError.badRequest(`${field} must be a notification id (a uuid)`);
  return text;
}

/**
 * The handshake of a player's notification stream: everything that can fail (the user id, the
 * resume id, the game's share of expensive reads, then the resume id's 410) is settled before the
 * stream sends its headers, so a failure is an ordinary envelope.
 */
@Injectable()
export class NotificationStreamOpener {
  constructor(
    private readonly streams: NotificationStreams,
    private readonly bulkheads: GameReads,
  ) {}

  async open(gameId: string, userId: string, start: NotificationStreamStart, req: unknown, res: unknown): Promise<void> {
    const externalId = pathUserId(userId);
    const id = start.after !== undefined ? parseNotificationId(start.after, 'after') : parseNotificationId(start.lastEventId, 'Last-Event-ID');
    // A replay's first page is one of the game's expensive reads: a game over its share is 429 here.
    const resume = id ? { id, slot: await this.bulkheads.reads.enter(gameId) } : null;
    await this.streams.open(gameId, externalId, resume, () => nodeObjects(req, res));
  }
}
