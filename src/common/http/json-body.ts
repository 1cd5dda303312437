import { isUtf8 } from 'node:buffer';

/**
 * How deep a request body's JSON may nest. No route takes more than a few levels; metadata is free
 * JSON but a game's metadata is a record, not a tree hundreds deep. Deeper bodies are refused before
 * parsing: deep enough, they overflow a recursive walk (validation, serialisation, jsonb input).
 */
export const MAX_JSON_DEPTH = 64;

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
