/**
 * A member snapshot (the `member` of a member event's body, toMemberDto's shape) stored short: from
 * release 1.13.0 a writer leaves out its group (the row's group_id) and each field below while it
 * holds the value given here, and every reader since release 1.12.0 puts them back
 * (memberWholeSql). A snapshot without `groupId` is a short one: every whole snapshot has it.
 * About 200 bytes less for each member event, and the group's id out of its row's names.
 */
export const MEMBER_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze({
  status: 'active',
  roles: [],
  roleGrants: [],
  metadata: {},
  notesPublic: null,
  notesPrivate: null,
  leftAt: null,
  bannedUntil: null,
  timedOutUntil: null,
});

const isEmptyList = (v: unknown) => Array.isArray(v) && v.length === 0;
const isEmptyObject = (v: unknown) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;

/** Whether `value` is what a reader puts back for `field`: the same JSON, written the same way. */
function isUsual(field: string, value: unknown): boolean {
  const usual = MEMBER_DEFAULTS[field];
  if (Array.isArray(usual)) return isEmptyList(value);
  if (usual !== null && typeof usual === 'object') return isEmptyObject(value);
  return value === usual;
}

/**
 * The snapshot `member` of an event of group `groupId` as stored short, or null when it is to be
 * stored whole: when its group is another, or a field a reader would put back is missing from it
 * (the reader's value would then be an addition). A snapshot without `groupId` has no short form,
 * which is the caller's to refuse (it would read as one).
 */
export function shortMember(member: Record<string, unknown>, groupId: unknown): Record<string, unknown> | null {
  if (member.groupId !== groupId) return null;
  for (const field of Object.keys(MEMBER_DEFAULTS)) if (member[field] === undefined) return null;
  const short: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(member)) {
    if (field !== 'groupId' && !(Object.hasOwn(MEMBER_DEFAULTS, field) && isUsual(field, value))) short[field] = value;
  }
  return short;
}

/**
 * MEMBER_DEFAULTS as a jsonb literal. Written with a space after each colon: the bench runs the
 * readers' statements through pgbench, which would take `:null` for one of its variables.
 */
export const MEMBER_DEFAULTS_SQL = `'${JSON.stringify(MEMBER_DEFAULTS).replace(/":/g, '": ')}'::jsonb`;

/**
 * Body `body` (an SQL expression) of journal row `j` with its member snapshot whole: a short one
 * gains its group and the fields left out, each field it holds kept (jsonb's `||` takes the right
 * side's). jsonb keeps one order of keys whatever the order they come in, so the text is the one
 * the whole snapshot had. A body without a short snapshot is answered as it is.
 */
export const memberWholeSql = (j: string, body: string): string =>
  `CASE WHEN jsonb_typeof(${body}->'member') = 'object' AND NOT (${body}->'member') ? 'groupId' AND ${j}.group_id IS NOT NULL ` +
  `THEN jsonb_set(${body}, '{member}', ${MEMBER_DEFAULTS_SQL} || jsonb_build_object('groupId', ${j}.group_id) || (${body}->'member')) ELSE ${body} END`;
