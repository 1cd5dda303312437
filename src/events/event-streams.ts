import { Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { REQUEST_ID_HEADER, requestIdOf } from '../common/request-id/request-id';
import type { SvcEvent } from './event';
import { EventBus } from './event-bus';

/** SPEC §6: a comment frame every 30 s keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_MS = 30_000;
/** A subscriber this far behind is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The SSE frame of an event (DECISIONS §8): id, event type, and the JSON body as data. */
export function eventFrame(e: SvcEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/**
 * The open live streams, indexed by group. One subscription to the event bus feeds them all: an
 * event is serialised once and written to the subscribers of its group only.
 */
@Injectable()
export class EventStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly byGroup = new Map<string, Set<ServerResponse>>();
  private subscription?: Subscription;
  private heartbeat?: NodeJS.Timeout;

  constructor(private readonly bus: EventBus) {}

  onModuleInit(): void {
    this.subscription = this.bus.events$.subscribe((e) => this.dispatch(e));
    this.heartbeat = setInterval(() => this.writeAll(':heartbeat\n\n'), HEARTBEAT_MS).unref();
  }

  /** Subscribers across all groups (for diagnostics and tests). */
  get size(): number {
    let n = 0;
    for (const set of this.byGroup.values()) n += set.size;
    return n;
  }

  /**
   * Registers the subscriber, then sends the 200 headers (DECISIONS §26: an event committed after a
   * client has the headers reaches it).
   */
  open(groupId: string, req: IncomingMessage, res: ServerResponse): void {
    let set = this.byGroup.get(groupId);
    if (!set) this.byGroup.set(groupId, (set = new Set()));
    set.add(res);
    const drop = () => this.remove(groupId, res);
    req.once('close', drop);
    res.once('close', drop);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      [REQUEST_ID_HEADER]: requestIdOf(req) ?? '',
    });
    res.write(':ok\n\n');
  }

  /** Clean close on shutdown: every stream ends, before the HTTP server stops. */
  beforeApplicationShutdown(): void {
    this.subscription?.unsubscribe();
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const set of this.byGroup.values()) for (const res of set) res.end();
    this.byGroup.clear();
  }

  private dispatch(e: SvcEvent): void {
    if (!e.groupId) return;
    const set = this.byGroup.get(e.groupId);
    if (!set?.size) return;
    const frame = eventFrame(e);
    for (const res of set) this.write(res, frame);
  }

  private writeAll(frame: string): void {
    for (const set of this.byGroup.values()) for (const res of set) this.write(res, frame);
  }

  private write(res: ServerResponse, frame: string): void {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      res.destroy();
      return;
    }
    res.write(frame);
  }

  private remove(groupId: string, res: ServerResponse): void {
    const set = this.byGroup.get(groupId);
    if (!set) return;
    set.delete(res);
    if (!set.size) this.byGroup.delete(groupId);
  }
}
