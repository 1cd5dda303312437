/**
 * Example values for the API document, made from its schemas: a property's own `example` where it
 * has one, else a value of its type, format and name that satisfies its constraints. Redocly's lint
 * (no-invalid-media-type-examples) checks every one against its schema.
 */

export type Schema = Record<string, unknown>;
export type Components = Record<string, Schema>;

/**
 * 'answer': every property, as the service answers. 'request': the required properties and those
 * with an example of their own (all of them when that leaves none), so an example body stays a
 * sensible call rather than every option at once.
 */
export type ExampleMode = 'answer' | 'request';

const MAX_DEPTH = 8;
const UUIDS = [
  '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  '3f2b8c1e-5d4a-4e8b-9c7d-2a1f6e0b9d34',
  'b1d4e2f3-8a9c-4b7d-a6e5-1c2d3e4f5a6b',
  '0e8f9a7b-6c5d-4e3f-8a2b-1c0d9e8f7a6b',
];
const INSTANT = '2026-03-14T09:26:53.000Z';

/**
 * An internal user id (a uuid, never a player's own id), for the few fields that hold one: set as
 * their `example`, since the names below would otherwise give them a player id.
 */
export const INTERNAL_USER_ID_EXAMPLE = '01a211ce-3cf4-7d2a-9b1e-6c0f4a8d2e57';

/** Values by property name, for strings the schema says nothing more about. */
const BY_NAME: Array<[RegExp, string]> = [
  [/^(userId|actorUserId|targetUserId|creatorUserId|otherUserId|externalUserId|viewer|moderatorUserId|invitedBy|decidedBy)$/, 'player-1842'],
  [/UserId$/, 'player-2077'],
  [/^notes/, 'Raid lead on Tuesdays'],
  [/url$/i, 'https://game.example/hooks/guildhall'],
  [/^(name|groupName)$/, 'Night Watch'],
  [/^gameName$/, 'Starfall'],
  [/description$/i, 'Raids on weekday evenings'],
  [/^(message|reason|notes)$/, 'Welcome aboard'],
  [/^permission$/, 'chat.send'],
  [/^(code|inviteCode)$/, 'Q7mX2pLk'],
  [/cursor$/i, 'eyJpZCI6IjdjOWU2Njc5In0'],
  [/^after$|^nextAfter$|^eventId$/, '019a7c3e5f10a1b2c3d4e5f6'],
  [/^(type|event|eventType)$/, 'member.joined'],
  [/^kind$/, 'guild'],
  [/By$/, 'player-1842'],
  [/passcode/i, 'open-sesame'],
  [/^secret$/, 'svc_whsec_8f14e45fceea167a5a36dedd4bea2543'],
  [/^key$/, 'jk_a1b2c3d4.5f4dcc3b5aa765d61d8327deb882cf99'],
];

function ref(schema: Schema, components: Components): Schema {
  const target = schema.$ref;
  if (typeof target !== 'string') return schema;
  return components[target.replace('#/components/schemas/', '')] ?? {};
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h;
}

function fit(value: string, schema: Schema): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const long = value.length < min ? value + 'x'.repeat(min - value.length) : value;
  return long.slice(0, max);
}

function stringExample(schema: Schema, name: string): string {
  switch (schema.format) {
    case 'uuid':
      return UUIDS[hash(name) % UUIDS.length];
    case 'date-time':
      return INSTANT;
    case 'date':
      return INSTANT.slice(0, 10);
    case 'uri':
    case 'url':
      return 'https://game.example/hooks/guildhall';
    case 'email':
      return 'ops@game.example';
  }
  const named = BY_NAME.find(([pattern]) => pattern.test(name));
  // The service's own ids (groups, roles, members, events, ...) are uuids; players' are not (above).
  if (!named && /^(id|roles?)$|Ids?$/.test(name)) return UUIDS[hash(name) % UUIDS.length];
  return fit(named ? named[1] : name || 'text', schema);
}

function numberExample(schema: Schema): number {
  if (typeof schema.minimum === 'number') return Math.max(schema.minimum, Math.min(10, typeof schema.maximum === 'number' ? schema.maximum : 10));
  if (typeof schema.maximum === 'number') return Math.min(schema.maximum, 10);
  return 3;
}

function objectExample(schema: Schema, components: Components, mode: ExampleMode, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  let names = Object.keys(properties);
  if (mode === 'request') {
    const chosen = names.filter((n) => required.has(n) || ref(properties[n], components).example !== undefined || properties[n].example !== undefined);
    if (chosen.length > 0) names = chosen;
  }
  const out: Record<string, unknown> = {};
  for (const n of names) out[n] = exampleOf(properties[n], components, mode, n, depth + 1);
  if (names.length === 0 && schema.additionalProperties) out.region = 'eu-west';
  return out;
}

/** An example of `schema`; `name` is the property it describes, if any. */
export function exampleOf(schema: Schema, components: Components, mode: ExampleMode, name = '', depth = 0): unknown {
  const s = ref(schema, components);
  if (s.example !== undefined) return s.example;
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Schema[]).map((part) => exampleOf(part, components, mode, name, depth + 1));
    return parts.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[parts.length - 1];
  }
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleOf(alternatives[0], components, mode, name, depth + 1);
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.default !== undefined && s.default !== null) return s.default;
  switch (s.type) {
    case 'string':
      return stringExample(s, name);
    case 'integer':
    case 'number':
      return numberExample(s);
    case 'boolean':
      return true;
    case 'array': {
      const item = exampleOf((s.items ?? {}) as Schema, components, mode, name.replace(/s$/, ''), depth + 1);
      const count = typeof s.minItems === 'number' && s.minItems > 1 ? s.minItems : 1;
      return Array.from({ length: count }, () => item);
    }
    default:
      return s.properties || s.additionalProperties || s.type === 'object' ? objectExample(s, components, mode, depth) : 'text';
  }
}
