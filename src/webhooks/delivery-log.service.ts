import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import { iso, isoNN } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { DeliveryLogRepository, type DeliveryLogRow } from './delivery-log.repository';
import { DELIVERY_STATUSES, type DeliveryLogQueryDto, type WebhookDeliveryDetailDto, type WebhookDeliveryDto } from './dto/delivery-log.dto';
import { WebhooksRepository } from './webhooks.repository';

/** What happened to an endpoint's deliveries, attempt by attempt (docs/webhooks.md). */
@Injectable()
export class DeliveryLogService {
  constructor(
    private readonly ds: DataSource,
    private readonly log: DeliveryLogRepository,
    private readonly endpoints: WebhooksRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async list(game: Pick<GameContext, 'gameId'>, endpointId: string, q: DeliveryLogQueryDto): Promise<Page<WebhookDeliveryDto>> {
    const scope = `webhook-deliveries:${endpointId}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const endpoint = isUuid(endpointId) ? await this.endpoints.find(this.ds.manager, game.gameId, endpointId) : null;
    if (!endpoint) throw ApiError.notFound('webhook');
    const rows = await this.log.list(this.ds.manager, endpoint.id, q.status ? [q.status] : DELIVERY_STATUSES, after, limit);
    return toPage(rows, limit, toDeliveryDto, (r: DeliveryLogRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  async get(game: Pick<GameContext, 'gameId'>, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDetailDto> {
    const row = isUuid(endpointId) && isUuid(deliveryId) ? await this.log.find(this.ds.manager, game.gameId, endpointId, deliveryId) : null;
    if (!row) throw ApiError.notFound('delivery');
    const attempts = await this.log.attempts(this.ds.manager, row.id);
    return {
      ...toDeliveryDto(row),
      attemptLog: attempts.map((a) => ({ number: a.number, at: isoNN(a.at), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
    };
  }
}

function toDeliveryDto(r: DeliveryLogRow): WebhookDeliveryDto {
  return {
    id: r.id,
    eventId: r.eventId,
    eventType: r.eventType,
    status: r.status,
    attempts: r.attempts,
    createdAt: isoNN(r.createdAt),
    nextAttemptAt: r.status === 'pending' ? isoNN(r.nextAttemptAt) : null,
    lastAttemptAt: iso(r.lastAttemptAt),
    deliveredAt: r.status === 'delivered' ? iso(r.completedAt) : null,
    lastStatusCode: r.lastStatus,
    lastError: r.lastError,
  };
}
