import { createCipheriv, createDecipheriv } from 'node:crypto';

/**
 * The consistency token (`x-svc-consistency`): the commit position of a write on the primary,
 * sealed so that a client learns nothing from it. A WAL position is shared by every game of the
 * database: in the clear, the distance between two of one game's tokens would tell it how much
 * every other game wrote meanwhile. Clients send back the last token they received; the service
 * opens it and compares positions.
 */
export const CONSISTENCY_HEADER = 'x-svc-consistency';

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** WAL pages are 8 kB; a page's header takes 24 bytes (40 on the first page of a 16 MB segment). */
const PAGE = 8192n;
const SEGMENT = 16n * 1024n * 1024n;

/** The position `text` (PostgreSQL's `16/B374D848`) stands for, or null when it is no WAL position. */
export function parsePosition(text: string): bigint | null {
  const m = LSN.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

export function formatPosition(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffff_ffffn).toString(16).toUpperCase()}`;
}

/**
 * The position a token stands for, from one read with pg_current_wal_insert_lsn(). When the WAL
 * ends just at a page boundary, that function counts the next page's header in, which a replica's
 * replay position never does until more WAL comes: the header is left out, or a read on a quiet
 * database would wait for nothing. No record ends inside a header, so nothing committed is left out.
 */
export function committedPosition(position: bigint): bigint {
  if (position % SEGMENT === 40n) return position - 40n;
  if (position % PAGE === 24n) return position - 24n;
  return position;
}

/** What a request's token says: a position; a token this service cannot open (the primary serves the read); or none at all (400). */
export type TokenReading = { position: bigint } | 'unreadable' | null;

/** 22 base64url characters: one sealed AES block. */
const SEALED = /^[A-Za-z0-9_-]{22}$/;
/** The second half of the block: a token whose block does not open to it was not sealed with this key. */
const MARK = Buffer.from('svc:lsn1', 'latin1');

/**
 * Seals positions into tokens and opens them again, with a key every instance of the database
 * shares (consistency-key.ts). A token is one AES-256 block, the position and a fixed mark,
 * enciphered: the same position always gives the same token, and nothing of the position shows.
 * A token under another key (a database replaced by one from elsewhere), or PostgreSQL's plain
 * form that earlier releases answered, is `unreadable`: the read goes to the primary, which has
 * every write, rather than failing.
 */
export class ConsistencyTokens {
  /** The last token issued: a busy instance answers many writes in a row from one seen position. */
  private last: { position: bigint; token: string } | null = null;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the consistency token key must be 32 bytes');
  }

  issue(position: bigint): string {
    const at = committedPosition(position);
    if (this.last?.position === at) return this.last.token;
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(at, 0);
    MARK.copy(block, 8);
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const token = Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
    this.last = { position: at, token };
    return token;
  }

  read(text: string): TokenReading {
    if (parsePosition(text) !== null) return 'unreadable';
    if (!SEALED.test(text)) return null;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]);
    if (!block.subarray(8).equals(MARK)) return 'unreadable';
    return { position: block.readBigUInt64BE(0) };
  }
}

/** Tokens one request may carry (a client with writes in flight keeps one per write it cannot order). */
export const MAX_TOKENS_PER_REQUEST = 16;

/**
 * What a request's `x-svc-consistency` asks for: one token, or several separated by commas (the
 * client cannot order opaque tokens, so it sends each it holds and the service takes the furthest).
 * Null when the header is no list of tokens (400); `unreadable` when any of them does not open.
 */
export function readTokenList(tokens: ConsistencyTokens, header: string): TokenReading {
  const parts = header.split(',').map((p) => p.trim());
  if (parts.length > MAX_TOKENS_PER_REQUEST) return null;
  let furthest: bigint | null = null;
  let unreadable = false;
  for (const part of parts) {
    const reading = tokens.read(part);
    if (reading === null) return null;
    if (reading === 'unreadable') unreadable = true;
    else if (furthest === null || reading.position > furthest) furthest = reading.position;
  }
  return unreadable || furthest === null ? 'unreadable' : { position: furthest };
}
