import { Injectable } from '@nestjs/common';
import { GameReads } from '../common/bulkhead/game-reads';
import { ApiError } from '../common/errors/api-error';
import { parsePageLimit } from '../common/pagination/page-limit';
import { FEED_START, parseEventId, parseEventTypes, type FeedPosition } from './feed-position';
import { FeedRepository } from './feed.repository';

/** EXTENSIONS X1: a page is 1 to 1000 events, 100 unless asked. */
export const FEED_PAGE_DEFAULT = 100;
export const FEED_PAGE_MAX = 1000;

/** A page `{ items, nextAfter }` already serialised: the bodies go out as the database holds them. */
export type FeedPageJson = string & { readonly __feedPage: unique symbol };

@Injectable()
export class FeedService {
  constructor(
    private readonly repo: FeedRepository,
    private readonly bulkheads: GameReads,
  ) {}

  /** One page of the game's feed after `after` (from the oldest retained event when absent). */
  async page(gameId: string, query: { after?: unknown; limit?: unknown; types?: unknown }): Promise<FeedPageJson> {
    const limit = parsePageLimit(query.limit, FEED_PAGE_DEFAULT, FEED_PAGE_MAX);
    const types = parseEventTypes(query.types);
    const afterId = parseEventId(query.after, 'after');
    // A page is one of the game's expensive reads: at most its share of the pool at once.
    const rows = await this.bulkheads.reads.run(gameId, async () => {
      const from = afterId ? await this.resolve(gameId, afterId) : FEED_START;
      return this.repo.pageText({ gameId, types }, from, limit);
    });
    const nextAfter = rows.length ? rows[rows.length - 1].id : (afterId ?? null);
    return `{"items":[${rows.map((r) => r.json).join(',')}],"nextAfter":${JSON.stringify(nextAfter)}}` as FeedPageJson;
  }

  /**
   * The position after which a reader resumes. An id the game never had, whose event has left the
   * retention window, or that is newer than the database (restored from a backup taken before it)
   * is 410: the reader cannot know what it missed and must start again.
   */
  async resolve(gameId: string, eventId: string): Promise<FeedPosition> {
    const position = await this.repo.positionOfEvent(gameId, eventId);
    if (!position) {
      throw new ApiError('events_expired', `event ${eventId} is unknown to this game: older than the retention window, or newer than this database (restored from an earlier backup); start again without after`);
    }
    return position;
  }
}
