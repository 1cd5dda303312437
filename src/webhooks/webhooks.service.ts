import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
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
import { UnitOfWork } from '../db/unit-of-work';
import { DEFAULT_GRACE_SECONDS, type RotatedSecretDto, type RotateSecretDto } from './dto/rotate-secret.dto';
import type { CreatedWebhookDto, CreateWebhookDto, UpdateWebhookDto, WebhookDto } from './dto/webhook.dto';
import { HostAddresses } from './host-addresses';
import { standardSecret } from './signature';
import { maskUrlCredentials } from './url-credentials';
import { webhookUrlProblem } from './url-policy';
import type { EndpointRow } from './webhook-rows';
import { WebhooksRepository, type EndpointChanges } from './webhooks.repository';

const sameSet = (a: string[], b: string[]) => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

/** Webhook endpoints (SPEC §4 Webhook endpoints). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: WebhooksRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly hostAddresses: HostAddresses,
  ) {}

  async create(game: GameContext, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    this.checkUrl(dto.url);
    return this.uow.run(async (tx) => {
      const row = await this.repo.insert(tx.manager, {
        gameId: game.gameId,
        url: dto.url,
        events: [...new Set(dto.events ?? [])],
        format: dto.format ?? 'svc',
        secret: dto.secret ?? generateSecret(),
      });
      tx.audit({ gameId: game.gameId, action: 'webhook.created', targetId: row.id, payload: { url: maskUrlCredentials(row.url), events: row.events, format: row.format } });
      return { ...toWebhookDto(row), secret: row.secret, standardSecret: standardSecret(row.secret) };
    });
  }

  async list(game: Pick<GameContext, 'gameId'>, q: { limit?: string; cursor?: string }): Promise<Page<WebhookDto>> {
    const scope = `webhooks:${game.gameId}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const rows = await this.repo.list(this.ds.manager, game.gameId, decodeKeyset(q.cursor, scope), limit);
    return toPage(rows, limit, toWebhookDto, (r: EndpointRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /** A no-op writes nothing; a new url is checked again; the url as answers show it is the stored one. */
  async update(game: GameContext, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    if (Object.values(dto).every((v) => v === undefined)) {
      throw ApiError.badRequest('body must hold at least one of url, events, disabled, format');
    }
    return this.uow.run(async (tx) => {
      const current = isUuid(id) ? await this.repo.find(tx.manager, game.gameId, id, true) : null;
      if (!current) throw ApiError.notFound('webhook');
      const changes: EndpointChanges = {};
      // DECISIONS §25: the url is checked when it is created or changed, not when re-sent as is.
      // Sent back as shown, credentials masked, it keeps the credentials it has.
      if (dto.url !== undefined && dto.url !== current.url && dto.url !== maskUrlCredentials(current.url)) {
        this.checkUrl(dto.url);
        changes.url = dto.url;
      }
      if (dto.events !== undefined && !sameSet(dto.events, current.events)) changes.events = [...new Set(dto.events)];
      if (dto.format !== undefined && dto.format !== current.format) changes.format = dto.format;
      if (dto.disabled !== undefined && dto.disabled !== (current.disabledAt !== null)) changes.disabled = dto.disabled;
      if (!Object.keys(changes).length) return toWebhookDto(current);
      const updated = await this.repo.update(tx.manager, current.id, changes);
      tx.audit({ gameId: game.gameId, action: 'webhook.updated', targetId: current.id, payload: { changes: Object.keys(changes) } });
      return toWebhookDto(updated);
    });
  }

  /**
   * A new signing secret; the replaced one goes on signing beside it for `graceSeconds`, so
   * receivers can move to the new one without dropping a delivery. The audit entry says when the
   * old one stops, never what either is.
   */
  async rotateSecret(game: GameContext, id: string, dto: RotateSecretDto): Promise<RotatedSecretDto> {
    const graceSeconds = dto.graceSeconds ?? DEFAULT_GRACE_SECONDS;
    return this.uow.run(async (tx) => {
      const current = isUuid(id) ? await this.repo.find(tx.manager, game.gameId, id, true) : null;
      if (!current) throw ApiError.notFound('webhook');
      const row = await this.repo.rotateSecret(tx.manager, current.id, dto.secret ?? generateSecret(), graceSeconds);
      const previousSecretExpiresAt = iso(row.previousSecretExpiresAt);
      tx.audit({
        gameId: game.gameId,
        action: 'webhook.secret_rotated',
        targetId: current.id,
        payload: { graceSeconds, previousSecretExpiresAt, generated: dto.secret === undefined },
      });
      return { secret: row.secret, standardSecret: standardSecret(row.secret), previousSecretExpiresAt };
    });
  }

  async delete(game: GameContext, id: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const current = isUuid(id) ? await this.repo.find(tx.manager, game.gameId, id, true) : null;
      if (!current) throw ApiError.notFound('webhook');
      await this.repo.delete(tx.manager, current.id);
      tx.audit({ gameId: game.gameId, action: 'webhook.deleted', targetId: current.id, payload: { url: maskUrlCredentials(current.url) } });
    });
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.settings.webhookAllowPrivateHosts, this.hostAddresses.current());
    if (problem) throw ApiError.badRequest(problem);
  }
}

/** SPEC §4: 32 random bytes, base64url. */
const generateSecret = () => randomBytes(32).toString('base64url');

/** What the game and operator routes answer for an endpoint: never its secrets, nor the credentials in its url. */
function toWebhookDto(r: EndpointRow): WebhookDto {
  return {
    id: r.id,
    gameId: r.gameId,
    url: maskUrlCredentials(r.url),
    events: r.events,
    format: r.format,
    createdAt: isoNN(r.createdAt),
    disabledAt: iso(r.disabledAt),
    previousSecretExpiresAt: iso(r.previousSecretExpiresAt),
  };
}
