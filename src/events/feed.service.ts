import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { parsePageLimit } from '../common/pagination/page-limit';
import type { SvcEvent } from './event';
import { FEED_START, parseEventId, parseEventTypes, type FeedPosition } from './feed-position';
import { FeedRepository } from './feed.repository';

/** EXTENSIONS X1: a page is 1 to 1000 events, 100 unless asked. */
export const FEED_PAGE_DEFAULT = 100;
export const FEED_PAGE_MAX = 1000;

export interface FeedPage {
  items: SvcEvent[];
  nextAfter: string | null;
}

@Injectable()
export class FeedService {
  constructor(private readonly repo: FeedRepository) {}

  /** One page of the game's feed after `after` (from the oldest retained event when absent). */
  async page(gameId: string, query: { after?: unknown; limit?: unknown; types?: unknown }): Promise<FeedPage> {
    const limit = parsePageLimit(query.limit, FEED_PAGE_DEFAULT, FEED_PAGE_MAX);
    const types = parseEventTypes(query.types);
    const afterId = parseEventId(query.after, 'after');
    const from = afterId ? await this.resolve(gameId, afterId) : FEED_START;
    const events = await this.repo.page({ gameId, types }, from, limit);
    const items = events.map((e) => e.body);
    return { items, nextAfter: items.length ? items[items.length - 1].id : (afterId ?? null) };
  }

  /**
   * The position after which a reader resumes. An id the game never had, or whose event has left
   * the retention window, is 410: the reader cannot know what it missed and must start again.
   */
  async resolve(gameId: string, eventId: string): Promise<FeedPosition> {
    const position = await this.repo.positionOfEvent(gameId, eventId);
    if (!position) {
      throw new ApiError('events_expired', `event ${eventId} is older than the retention window or unknown to this game; start again without after`);
    }
    return position;
  }
}
