import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { nodeObjects } from '../common/http/node-objects';
import { GroupLookup } from '../groups/group-lookup';
import { GameReads } from '../common/bulkhead/game-reads';
import { EventStreams, type ReplayStart } from './event-streams';
import { parseEventId, parseEventTypes } from './feed-position';
import { FeedService } from './feed.service';
import type { StreamKind } from './stream-stats';

/** Where a stream request starts: the query's `after`, else the `Last-Event-ID` header a reconnecting client sends. */
export interface StreamStart {
  after?: string;
  lastEventId?: string;
}

/**
 * The handshake of the game's and a group's stream, shared by the game routes and the operator's
 * (which differ only in where the game comes from). Everything that can fail (the group, `after`,
 * `types`) is settled before the stream sends its headers, so a failure is an ordinary envelope.
 */
@Injectable()
export class StreamOpener {
  constructor(
    private readonly ds: DataSource,
    private readonly lookup: GroupLookup,
    private readonly streams: EventStreams,
    private readonly feed: FeedService,
    private readonly bulkheads: GameReads,
  ) {}

  /** Every event of the game (of `types`, when given) after the start, then live. */
  async game(gameId: string, start: StreamStart & { types?: string }, req: unknown, res: unknown, kind: StreamKind = 'game'): Promise<void> {
    const types = parseEventTypes(start.types);
    const after = await this.after(gameId, start);
    await this.streams.open(gameId, { types: types && new Set(types) }, after, () => nodeObjects(req, res), kind);
  }

  /** A live group's events after the start, then live; with `viewer`, a secret group must count them as an active member. */
  async group(
    gameId: string,
    groupId: string,
    viewer: string | undefined,
    start: StreamStart,
    req: unknown,
    res: unknown,
    kind: StreamKind = 'group',
  ): Promise<void> {
    const group = await this.lookup.visible(this.ds.manager, gameId, groupId, viewer);
    const after = await this.after(gameId, start);
    await this.streams.open(gameId, { groupId: group.id }, after, () => nodeObjects(req, res), kind);
  }

  /**
   * The replay's start, resolved in a slot of the game's expensive reads that the replay's first
   * page is then read in (EventStreams.open releases it): a game over its share is 429 here.
   */
  private async after(gameId: string, start: StreamStart): Promise<ReplayStart | null> {
    const id = start.after !== undefined ? parseEventId(start.after, 'after') : parseEventId(start.lastEventId, 'Last-Event-ID');
    if (!id) return null;
    const slot = await this.bulkheads.reads.enter(gameId);
    try {
      return { position: await this.feed.resolve(gameId, id), slot };
    } catch (err) {
      slot();
      throw err;
    }
  }
}
