import { isUtf8 } from 'node:buffer';

/**
 * How deep a request body's JSON may nest. No route takes more than a few levels; metadata is free
 * JSON but a game's metadata is a record, not a tree hundreds deep. Deeper bodies are refused before
 * anything walks them: deep enough, they overflow a recursive walk (validation, serialisation, jsonb input).
 */
export const MAX_JSON_DEPTH = 64;
const DEPTH_PROBLEM = `request body is nested deeper than ${MAX_JSON_DEPTH} levels`;

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
      if (++depth > MAX_JSON_DEPTH) return DEPTH_PROBLEM;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return null;
}

/**
 * A body parsed without the checks every body needs only when it could fail them, or undefined
 * when it must take them (`jsonBodyProblem`, then Fastify's parser): that is when its text holds a
 * `\u` escape (the only way to a lone surrogate, and to a key spelled in escapes), a `__proto__` or
 * a `constructor` (the keys Fastify's parser refuses), or is no JSON to the language. Such a body
 * gets the same answer either way; the checked path cost a permission batch of 100 checks about
 * 55 us (a scan of every byte for depth, two regular expressions over the text) against 30 here.
 * The depth is then measured on the value, which JSON.parse builds without recursion.
 */
export function parseClearJson(body: Buffer): { value: unknown } | { problem: string } | undefined {
  if (!isUtf8(body)) return undefined;
  const text = body.toString('utf8');
  if (text.includes('\\u') || text.includes('__proto__') || text.includes('constructor')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return nestedDeeper(value, 1) ? { problem: DEPTH_PROBLEM } : { value };
}

/** Whether `v`, at nesting level `level` (the body itself is level 1), holds an object or array past MAX_JSON_DEPTH. */
function nestedDeeper(v: unknown, level: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (level > MAX_JSON_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (nestedDeeper(v[i], level + 1)) return true;
    return false;
  }
  for (const k in v) if (nestedDeeper((v as Record<string, unknown>)[k], level + 1)) return true;
  return false;
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
