/**
 * The consistency token (`x-svc-consistency`): a WAL position of the primary in PostgreSQL's own
 * text form (`16/B374D848`). Clients treat it as opaque and send back the last one they received.
 */
export const CONSISTENCY_HEADER = 'x-svc-consistency';

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** WAL pages are 8 kB; a page's header takes 24 bytes (40 on the first page of a 16 MB segment). */
const PAGE = 8192n;
const SEGMENT = 16n * 1024n * 1024n;

/** The position `text` stands for, or null when it is no WAL position. */
export function parsePosition(text: string): bigint | null {
  const m = LSN.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

export function formatPosition(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffff_ffffn).toString(16).toUpperCase()}`;
}

/**
 * The token for a commit position read with pg_current_wal_insert_lsn(). When the WAL ends just
 * at a page boundary, that function counts the next page's header in, which a replica's replay
 * position never does until more WAL comes: the header is left out, or a read on a quiet database
 * would wait for nothing. No record ends inside a header, so nothing committed is left out.
 */
export function tokenFor(position: string): string {
  const at = parsePosition(position);
  if (at === null) return position;
  if (at % SEGMENT === 40n) return formatPosition(at - 40n);
  if (at % PAGE === 24n) return formatPosition(at - 24n);
  return formatPosition(at);
}
