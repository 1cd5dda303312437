import { eventId } from '../common/ids';
import type { SvcEvent } from '../events/event';
import { storedEventBody } from './event-envelope';

const GAME = '01a23443-f84d-7ca2-b083-d3384ce4c998';
const GROUP = '01a23443-f8ae-74f2-9227-9e727d39e421';

function event(fields: Partial<SvcEvent> & Record<string, unknown> = {}, at = Date.UTC(2026, 11, 2, 1, 2, 3, 45)): SvcEvent {
  return { id: eventId(at), type: 'member.joined', gameId: GAME, groupId: GROUP, occurredAt: new Date(at).toISOString(), player: { userId: 'bob' }, ...fields };
}

describe('storedEventBody', () => {
  it('leaves out the envelope when the row gives it back: id, type, game, group and the id\'s millisecond', () => {
    expect(storedEventBody(event())).toEqual({ player: { userId: 'bob' } });
  });

  it('leaves it out of an event without a group', () => {
    const { groupId: _, ...gameWide } = event({ type: 'game.user.banned', svcUserId: 'u' });
    expect(storedEventBody(gameWide)).toEqual({ player: { userId: 'bob' }, svcUserId: 'u' });
  });

  it('keeps the whole body when a field would not come back exactly', () => {
    const whole = [
      event({ occurredAt: new Date(Date.UTC(2026, 11, 2, 1, 2, 3, 46)).toISOString() }),
      event({ gameId: GAME.toUpperCase() }),
      event({ groupId: null } as unknown as Partial<SvcEvent>),
      event({ groupId: 'not-a-uuid' }),
      event({ id: 'e1' }),
    ];
    for (const e of whole) expect(storedEventBody(e)).toBe(e);
  });

  describe('a member snapshot', () => {
    const member = (fields: Record<string, unknown> = {}) => ({
      id: '01a23443-f8b0-7000-8000-000000000001',
      groupId: GROUP,
      userId: 'bob',
      status: 'active',
      roles: [],
      roleGrants: [],
      metadata: {},
      notesPublic: null,
      notesPrivate: null,
      joinedAt: '2026-12-02T01:02:03.045Z',
      leftAt: null,
      bannedUntil: null,
      timedOutUntil: null,
      ...fields,
    });
    const memberEvent = (m: Record<string, unknown>, fields: Record<string, unknown> = {}) => event({ player: undefined, member: m, ...fields });

    it('is stored without its group and without each field at its usual value', () => {
      expect(storedEventBody(memberEvent(member()))).toEqual({ member: { id: member().id, userId: 'bob', joinedAt: member().joinedAt } });
    });

    it('keeps each field that differs from its usual value', () => {
      const unusual = {
        status: 'left',
        roles: ['r1'],
        roleGrants: [{ roleId: 'r1', expiresAt: null }],
        metadata: { level: 3 },
        notesPublic: '',
        notesPrivate: 'n',
        leftAt: '2026-12-02T01:02:04.000Z',
        bannedUntil: '2026-12-03T00:00:00.000Z',
        timedOutUntil: '2026-12-02T02:00:00.000Z',
      };
      const { groupId: _, ...stored } = member(unusual);
      expect(storedEventBody(memberEvent(member(unusual), { reason: 'x' }))).toEqual({ member: stored, reason: 'x' });
    });

    it('is stored whole when a reader could not give it back exactly', () => {
      const { timedOutUntil: _, ...lacking } = member();
      for (const m of [member({ groupId: '01a23443-f8ae-74f2-9227-9e727d39e422' }), lacking, member({ timedOutUntil: undefined })]) {
        expect(storedEventBody(memberEvent(m))).toEqual({ member: m });
      }
    });

    it('without its group, keeps the whole body, envelope and all: it would read as a short one', () => {
      const { groupId: _, ...groupless } = member();
      for (const m of [groupless, member({ groupId: undefined })]) {
        const e = memberEvent(m);
        expect(storedEventBody(e)).toBe(e);
      }
    });

    it('is left as it is in a body stored whole', () => {
      const e = memberEvent(member(), { occurredAt: new Date(Date.UTC(2026, 11, 2, 1, 2, 3, 46)).toISOString() });
      expect(storedEventBody(e)).toBe(e);
    });
  });

  it('leaves the event it was given as it was: the bus publishes that one', () => {
    const e = event({ member: { id: 'm', groupId: GROUP, userId: 'bob', status: 'active', roles: [], roleGrants: [], metadata: {}, notesPublic: null, notesPrivate: null, leftAt: null, bannedUntil: null, timedOutUntil: null } });
    const copy = structuredClone(e);
    storedEventBody(e);
    expect(e).toEqual(copy);
  });
});
