import { Injectable, Logger, StreamableFile, type BeforeApplicationShutdown } from '@nestjs/common';
import type { AuditRow } from '../audit/audit-row';
import { toAuditDto } from '../audit/audit-view';
import type { BanHistoryRow, BanRow } from '../bans/ban-rows';
import { toBanDto, toHistoryDto } from '../bans/ban-view';
import { ApiError } from '../common/errors/api-error';
import { logFailure } from '../common/errors/log-failure';
import { iso, isoNN } from '../common/time';
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
import type { UserExportMembershipDto } from './dto/user-export.dto';
import { coalesce, GeneratedStream, groupedJsonArray, jsonArray } from './export-stream';
import { eventOfUser } from './names-user';
import { exportQueries, UserExportRepository, type ExportSection, type ExportSnapshot, type ExportSubject } from './user-export.repository';

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
  overrides: { permission: string; allowed: boolean }[];
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
]);

const json = (value: unknown): string => JSON.stringify(value);

/**
 * A player's data (EXTENSIONS X7, export): one JSON document of everything the game holds about a
 * user, read from one snapshot and streamed as it is read.
 */
@Injectable()
export class UserExportService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(UserExportService.name);
  /** The exports streaming now, each holding a connection until it ends. */
  private readonly streaming = new Set<GeneratedStream>();

  constructor(
    private readonly repo: UserExportRepository,
    private readonly identity: IdentityService,
    private readonly configs: GameConfigService,
    private readonly games: GamesService,
  ) {}

  /** The admin twin: an unknown game is 404 first, then as the game's own key would read. */
  async exportForAdmin(gameId: string, userId: string): Promise<StreamableFile> {
    await this.games.requireGame(gameId);
    return this.export({ gameId }, userId);
  }

  /**
   * Everything that can fail with an envelope is settled before the answer starts: the snapshot
   * is open and the user known (a user the game has never seen, neither by an identity nor by an
   * invitation naming them, is 404). The rest streams, and the snapshot's connection goes back to
   * the pool when the stream ends, fails or is abandoned by the client.
   */
  async export(scope: ExportScope, userId: string): Promise<StreamableFile> {
    // Before the snapshot takes a connection: loading the config may need one of its own.
    const friends = await this.configs.forFriends(scope.gameId);
    const snapshot = await this.repo.openSnapshot();
    try {
      const svcUserId = await this.identity.find(snapshot.manager, scope.gameId, userId);
      if (!svcUserId && !(await snapshot.namedByInvitation(scope.gameId, userId))) throw ApiError.notFound('user');
      const subject: ExportSubject = { gameId: scope.gameId, userId, svcUserId };
      const exportedAt = await snapshot.takenAt();
      const visibility = toVisibilityDto(friends, userId, svcUserId ? await snapshot.storedVisibility(subject) : null);
      const head = `{"exportedAt":${json(isoNN(exportedAt))},"gameId":${json(scope.gameId)},"userId":${json(userId)}`;
      const body = coalesce(this.document(snapshot, subject, head, json(visibility)), CHUNK_CHARS);
      const stream: GeneratedStream = new GeneratedStream(body, async (failure) => {
        this.streaming.delete(stream);
        // A client that goes away is no failure; a lost connection (a reader stalled past the
        // idle-in-transaction timeout, the database going down) is named by its own cause.
        const cause = failure && snapshot.reason(failure);
        if (cause) logFailure(this.logger, cause, 'user export cut short', { gameId: scope.gameId });
        await snapshot.close(cause ?? undefined);
      });
      this.streaming.add(stream);
      return new StreamableFile(stream, { type: EXPORT_CONTENT_TYPE, disposition: EXPORT_DISPOSITION });
    } catch (err) {
      await snapshot.close(err);
      throw snapshot.reason(err);
    }
  }

  /**
   * On shutdown, exports still streaming are cut short (the client sees an answer that is not
   * valid JSON, and asks again elsewhere, as live streams reconnect): one held by a slow or stalled
   * reader would otherwise keep the HTTP server and the pool from closing.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const closed = [...this.streaming].map((s) => new Promise((resolve) => s.once('close', resolve)));
    for (const s of this.streaming) s.destroy();
    await Promise.all(closed);
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
    yield* jsonArray(rows<AuditRow>('audit'), (r) => json(toAuditDto(r)));
    yield ',"events":';
    // The bodies go out as stored; parsed only to check that they name the user (names-user.ts).
    yield* jsonArray(rows<{ json: string }>('events'), (r) => (eventOfUser(JSON.parse(r.json), s.userId, s.svcUserId) ? r.json : null));
    yield '}';
  }
}

function toMembership(r: MembershipRow): UserExportMembershipDto {
  return {
    ...toMemberDto(r),
    group: { id: r.groupId, name: r.groupName, kind: r.groupKind, softDeletedAt: iso(r.groupSoftDeletedAt) },
    permissionOverrides: r.overrides.map((o) => ({ memberId: r.id, permission: o.permission, allowed: o.allowed })),
  };
}

/** No rows: a section read by internal id, for a user the game knows only from an invitation. */
async function* none<R>(): AsyncGenerator<R[], void, undefined> {}
