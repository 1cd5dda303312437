import { isUtf8 } from 'node:buffer';

/**
 * How deep a request body's JSON may nest. No route takes more than a few levels; metadata is free
 * JSON but a game's metadata is a record, not a tree hundreds deep. Deeper bodies are refused before
 * parsing: deep enough, they overflow a recursive walk (validation, serialisation, jsonb input).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a body holds nothing but whitespace (DECISIONS §17: an empty JSON body is no body), as
 * String.prototype.trim sees whitespace. A body that opens with a printable ASCII byte is answered
 * from that byte alone, without decoding the rest.
 */
export function isBlankBody(body: Buffer): boolean {
  if (body.length === 0) return true;
  const first = body[0];
  if (first > 0x20 && first < 0x7f) return false;
  return body.toString('utf8').trim() === '';
}

/** Why a request body cannot be JSON we accept (invalid UTF-8, nested too deep), or null. */
export function jsonBodyProblem(body: Buffer): string | null {
  if (!isUtf8(body)) return 'request body is not valid UTF-8';
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `request body is nested deeper than ${MAX_JSON_DEPTH} levels`;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return null;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a parsed body cannot be stored as text, or null: a string (or key) holding a lone surrogate,
 * which JSON allows as an escape but UTF-8, and so PostgreSQL, cannot represent. Walks the value
 * only when the raw text has such an escape.
 */
export function parsedBodyProblem(raw: Buffer, value: unknown): string | null {
  // Only a `\uD…` escape puts a lone surrogate into a parsed body: look for one in the bytes
  // (native, no copy of the body) before walking the value.
  if (raw.indexOf('\\ud') < 0 && raw.indexOf('\\uD') < 0) return null;
  const lone = (v: unknown, depth: number): boolean => {
    if (typeof v === 'string') return LONE_SURROGATE.test(v);
    if (depth > MAX_JSON_DEPTH || v === null || typeof v !== 'object') return false;
    if (Array.isArray(v)) return v.some((x) => lone(x, depth + 1));
    return Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || lone(x, depth + 1));
  };
  return lone(value, 0) ? 'request body holds a lone UTF-16 surrogate (\\ud800-\\udfff escape), which is not text' : null;
}
