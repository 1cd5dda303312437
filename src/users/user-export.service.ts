import { Injectable, Logger, StreamableFile, type BeforeApplicationShutdown } from '@nestjs/common';
import type { AuditRow } from '../audit/audit-row';
import { toAuditDto } from '../audit/audit-view';
import type { BanHistoryRow, BanRow } from '../bans/ban-rows';
import { toBanDto, toHistoryDto } from '../bans/ban-view';
import type { ActingOperator } from '../common/auth/operator-roles';
import type { Release } from '../common/bulkhead/game-bulkhead';
import { GameReads } from '../common/bulkhead/game-reads';
import { ApiError } from '../common/errors/api-error';
import { logFailure } from '../common/errors/log-failure';
import { iso, isoNN, isoOfEpochMs } from '../common/time';
import { UnitOfWork } from '../db/unit-of-work';
import type { FriendListRow, FriendTagRow, RelationshipRow } from '../friends/friend-rows';
import { toBlockDto, toFriendshipDto, toRequestDto, toTagDto, toVisibilityDto } from '../friends/friend-view';
import { GameConfigService } from '../game-config/game-config.service';
import { GamesService } from '../games/games.service';
import { IdentityService } from '../identity/identity.service';
import type { InvitationRowWithGroup } from '../invitations/invitation-row';
import { toInvitationWithGroupDto } from '../invitations/invitation-view';
import type { JoinRequestRow } from '../join-requests/join-request-row';
import { toJoinRequestDto } from '../join-requests/join-request-view';
import type { MemberRow } from '../members/member-row';
import { toMemberDto } from '../members/member-view';
import type { NotificationRow } from '../notifications/notification-row';
import { toNotificationDto } from '../notifications/notification-view';
import { recordOperatorAction } from '../operators/operator-audit';
import type { UserExportMembershipDto } from './dto/user-export.dto';
import { coalesce, groupedJsonArray, jsonArray } from './export-stream';
import { ExportSpool } from './export-spool';
import { eventOfUser, namesUser } from './names-user';
import { mayBeUnindexed } from './unindexed-names';
import { exportQueries, namedByInvitation, UserExportRepository, type ExportSection, type ExportSnapshot, type ExportSubject } from './user-export.repository';
import { toReportDto, type ReportRow } from '../reports/report-row';

/** What the caller reads the export of: the game of its key, or the path's game on the admin twin. */
export type ExportScope = { gameId: string };

/** Chunks of the answer are at least this long (the last may be shorter): a batch of rows is one or a few. */
const CHUNK_CHARS = 16 * 1024;

export const EXPORT_CONTENT_TYPE = 'application/json; charset=utf-8';
export const EXPORT_DISPOSITION = 'attachment; filename="guildhall-user-export.json"';

type MembershipRow = MemberRow & {
  groupName: string;
  groupKind: string;
  groupSoftDeletedAt: Date | null;
  overrides: { permission: string; allowed: boolean; expiresAt: number | null }[];
};
type TagRow = Omit<FriendTagRow, 'ownerExternalId'> & { friendExternalId: string | null };

/** The sections that read the user's rows by internal id: without an identity they are empty. */
const BY_INTERNAL_ID: ReadonlySet<ExportSection> = new Set<ExportSection>([
  'memberships',
  'joinRequests',
  'gameBan',
  'groupBans',
  'banHistory',
  'friends',
  'requestsSent',
  'requestsReceived',
  'blocks',
  'tags',
  'notifications',
]);

const json = (value: unknown): string => JSON.stringify(value);
const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * A player's data (EXTENSIONS X7, export): one JSON document of everything the game holds about a
 * user, read from one snapshot into a spool as fast as the database gives it, and answered from the
 * spool as fast as the client reads it. The snapshot's connection goes back to the pool when the
 * document is read, however slowly the client takes it (a stalled reader holds a spool, bounded in
 * memory, not a connection).
 *
 * Two bulkheads per game (GameReads): `exports` holds an export from its start to its last byte
 * (the client's pace), `reads` only while its snapshot is open (the database's pace).
 */
@Injectable()
export class UserExportService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(UserExportService.name);
  /** The answers being sent, each from its spool. */
  private readonly answers = new Set<ExportSpool>();
  /** The snapshots still being read into a spool. */
  private readonly producers = new Set<Promise<void>>();

  constructor(
    private readonly repo: UserExportRepository,
    private readonly identity: IdentityService,
    private readonly configs: GameConfigService,
    private readonly games: GamesService,
    private readonly uow: UnitOfWork,
    private readonly gameReads: GameReads,
  ) {}

  /** The game's route: its key's game. */
  exportForGame(scope: ExportScope, userId: string): Promise<StreamableFile> {
    return this.admitted(scope.gameId, (spool) => this.start(spool, scope.gameId, userId, null));
  }

  /** The admin twin: an unknown game is 404 first, then as the game's own key would read; `by` is recorded. */
  exportForAdmin(gameId: string, userId: string, by: ActingOperator): Promise<StreamableFile> {
    return this.admitted(gameId, async (spool) => {
      await this.games.requireGame(gameId);
      await this.start(spool, gameId, userId, by);
    });
  }

  /**
   * Runs `begin` in one of the game's export slots, held until the answer's spool closes, whichever
   * way: read to the end, cut short, abandoned by the client, or never answered because `begin` failed.
   */
  private async admitted(gameId: string, begin: (spool: ExportSpool) => Promise<void>): Promise<StreamableFile> {
    const leave = await this.gameReads.exports.enter(gameId);
    const spool = new ExportSpool();
    // The spool is filled before the answer is piped from it: a failure that early must not be an
    // unhandled 'error'. The producer logs it; the answer, once piped, is cut short by it.
    spool.on('error', () => undefined);
    this.answers.add(spool);
    spool.once('close', () => {
      this.answers.delete(spool);
      leave();
    });
    try {
      await begin(spool);
    } catch (err) {
      spool.destroy();
      throw err;
    }
    return new StreamableFile(spool, { type: EXPORT_CONTENT_TYPE, disposition: EXPORT_DISPOSITION });
  }

  /**
   * Everything that can fail with an envelope is settled before the answer starts: the user is
   * known (a user the game has never seen, neither by an identity nor by an invitation naming them,
   * is 404), the export recorded, the snapshot open. The document is then read into the spool in
   * the background; the answer streams from the spool.
   */
  private async start(spool: ExportSpool, gameId: string, userId: string, by: ActingOperator | null): Promise<void> {
    // Before the snapshot takes a connection: loading the config may need one of its own.
    const friends = await this.configs.forFriends(gameId);
    const leaveReads = await this.gameReads.reads.enter(gameId);
    try {
      // Its own short transaction, committed before the snapshot takes its connection: an export
      // never waits for a second connection while holding one.
      await this.record(gameId, userId, by);
      const snapshot = await this.repo.openSnapshot();
      let document: AsyncGenerator<string, void, undefined>;
      try {
        const svcUserId = await this.identity.find(snapshot.manager, gameId, userId);
        // Erased since the export was recorded: the game no longer knows them.
        if (!svcUserId && !(await snapshot.namedByInvitation(gameId, userId))) throw ApiError.notFound('user');
        const subject: ExportSubject = { gameId, userId, svcUserId, unindexed: await mayBeUnindexed(snapshot.manager, svcUserId ? [userId, svcUserId] : [userId]) };
        const exportedAt = await snapshot.takenAt();
        const visibility = toVisibilityDto(friends, userId, svcUserId ? await snapshot.storedVisibility(subject) : null);
        const head = `{"exportedAt":${json(isoNN(exportedAt))},"gameId":${json(gameId)},"userId":${json(userId)}`;
        document = coalesce(this.document(snapshot, subject, head, json(visibility)), CHUNK_CHARS);
      } catch (err) {
        await snapshot.close(err);
        throw snapshot.reason(err);
      }
      this.produce(gameId, snapshot, document, spool, leaveReads);
    } catch (err) {
      leaveReads();
      throw err;
    }
  }

  /**
   * The game's audit entry `user.exported` (and, for an operator, the operator audit's), once the
   * user is known to the game. The identity lookup takes the user's write lock: an erasure of the
   * user runs wholly before this entry or wholly after it, and then pseudonymises it.
   */
  private async record(gameId: string, userId: string, by: ActingOperator | null): Promise<void> {
    await this.uow.run(async (tx) => {
      const svcUserId = await this.identity.find(tx.manager, gameId, userId);
      if (!svcUserId && !(await namedByInvitation(tx.manager, gameId, userId))) throw ApiError.notFound('user');
      tx.audit({ gameId, groupId: null, action: 'user.exported', targetId: userId, payload: { userId } });
      if (by) await recordOperatorAction(tx.manager, by, { action: 'user.exported', gameId, targetId: userId });
    });
  }

  /**
   * Reads the document into the spool at the database's pace, then ends the snapshot and gives its
   * connection and its read slot back. A spool nobody reads any more (the client went away, the
   * server is shutting down) stops the reading early. A failure cuts the answer short: a document
   * that does not end is not valid JSON, so the client cannot take it for a whole one.
   */
  private produce(gameId: string, snapshot: ExportSnapshot, document: AsyncGenerator<string, void, undefined>, spool: ExportSpool, leaveReads: Release): void {
    const cutShort = (failure: unknown) => {
      logFailure(this.logger, failure, 'user export cut short', { gameId });
      spool.fail(asError(failure));
    };
    const work = (async () => {
      let failure: unknown;
      try {
        for await (const piece of document) if (!(await spool.put(piece))) break;
      } catch (err) {
        failure = snapshot.reason(err);
      }
      try {
        await snapshot.close(failure);
      } finally {
        leaveReads();
      }
      if (failure === undefined) spool.complete();
      else cutShort(failure);
    })()
      .catch(cutShort)
      .finally(() => this.producers.delete(work));
    this.producers.add(work);
  }

  /**
   * On shutdown, exports still being answered are cut short (the client sees an answer that is not
   * valid JSON, and asks again elsewhere, as live streams reconnect): one held by a slow or stalled
   * reader would otherwise keep the HTTP server from closing. Snapshots still being read stop at
   * their next batch, and give their connections back before the pool closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const closed = [...this.answers].map((s) => new Promise((resolve) => (s.closed ? resolve(undefined) : s.once('close', resolve))));
    for (const s of this.answers) s.destroy();
    await Promise.all(closed);
    await Promise.all([...this.producers]);
  }

  /** The document, section by section, in the order of UserExportDto. */
  private async *document(snap: ExportSnapshot, s: ExportSubject, head: string, visibility: string): AsyncGenerator<string, void, undefined> {
    const rows = <R>(section: ExportSection): AsyncIterable<R[]> =>
      !s.svcUserId && BY_INTERNAL_ID.has(section) ? none<R>() : snap.batches<R>(section, exportQueries[section](s));

    yield `${head},"memberships":`;
    yield* jsonArray(rows<MembershipRow>('memberships'), (r) => json(toMembership(r)));
    yield ',"invitations":';
    yield* jsonArray(rows<InvitationRowWithGroup>('invitations'), (r) => json(toInvitationWithGroupDto(r)));
    yield ',"joinRequests":';
    yield* jsonArray(rows<JoinRequestRow>('joinRequests'), (r) => json(toJoinRequestDto(r)));

    yield ',"bans":{"game":';
    yield* jsonArray(rows<BanRow>('gameBan'), (r) => json(toBanDto(r)));
    yield ',"groups":';
    yield* jsonArray(rows<MemberRow>('groupBans'), (r) => json(toMemberDto(r)));
    yield ',"history":';
    yield* jsonArray(rows<BanHistoryRow>('banHistory'), (r) => json(toHistoryDto(r)));

    yield '},"friends":{"friends":';
    yield* jsonArray(rows<FriendListRow>('friends'), (r) => json(toFriendshipDto(r)));
    yield ',"requestsSent":';
    yield* jsonArray(rows<RelationshipRow>('requestsSent'), (r) => json(toRequestDto(r)));
    yield ',"requestsReceived":';
    yield* jsonArray(rows<RelationshipRow>('requestsReceived'), (r) => json(toRequestDto(r)));
    yield ',"blocks":';
    yield* jsonArray(rows<RelationshipRow>('blocks'), (r) => json(toBlockDto(r)));
    yield ',"tags":';
    yield* groupedJsonArray(rows<TagRow>('tags'), {
      idOf: (r) => r.id,
      parent: (r) => toTagDto({ ...r, ownerExternalId: s.userId }),
      key: 'friendSvcUserIds',
      child: (r) => r.friendExternalId,
    });
    yield `,"visibility":${visibility}}`;

    yield ',"audit":';
    yield* jsonArray(rows<AuditRow>('audit'), (r) => (auditOfUser(r, s) ? json(toAuditDto(r)) : null));
    yield ',"events":';
    // The bodies go out as stored; parsed only to check that they name the user (names-user.ts).
    yield* jsonArray(rows<{ json: string }>('events'), (r) => (eventOfUser(JSON.parse(r.json), s.userId, s.svcUserId) ? r.json : null));
    yield ',"notifications":';
    yield* jsonArray(rows<NotificationRow>('notifications'), (r) => json(toNotificationDto(r)));
    yield ',"reports":{"filed":';
    yield* jsonArray(rows<ReportRow>('reportsFiled'), (r) => json(toReportDto(r)));
    yield ',"about":';
    // Who reported them is withheld: an export must not let a reported player find their reporters.
    yield* jsonArray(rows<ReportRow>('reportsAbout'), (r) => json({ ...toReportDto(r), reporterUserId: null }));
    yield '}}';
  }
}

function toMembership(r: MembershipRow): UserExportMembershipDto {
  return {
    ...toMemberDto(r),
    group: { id: r.groupId, name: r.groupName, kind: r.groupKind, softDeletedAt: iso(r.groupSoftDeletedAt) },
    permissionOverrides: r.overrides.map((o) => ({ memberId: r.id, permission: o.permission, allowed: o.allowed, expiresAt: isoOfEpochMs(o.expiresAt) })),
  };
}

/** An audit entry is the user's when they are its actor or its target, or its payload names them (names-user.ts). */
function auditOfUser(r: AuditRow, s: ExportSubject): boolean {
  return (s.svcUserId !== null && r.actorUserId === s.svcUserId) || r.targetId === s.userId || namesUser(r.payload, s.userId, s.svcUserId);
}

/** No rows: a section read by internal id, for a user the game knows only from an invitation. */
async function* none<R>(): AsyncGenerator<R[], void, undefined> {}
