import { eventId } from '../common/ids';
import type { SvcEvent } from '../events/event';
import { storedEventBody } from './event-envelope';

const GAME = '01a23443-f84d-7ca2-b083-d3384ce4c998';
const GROUP = '01a23443-f8ae-74f2-9227-9e727d39e421';

function event(fields: Partial<SvcEvent> & Record<string, unknown> = {}, at = Date.UTC(2026, 11, 2, 1, 2, 3, 45)): SvcEvent {
  return { id: eventId(at), type: 'member.joined', gameId: GAME, groupId: GROUP, occurredAt: new Date(at).toISOString(), member: { userId: 'bob' }, ...fields };
}

describe('storedEventBody', () => {
  it('leaves out the envelope when the row gives it back: id, type, game, group and the id\'s millisecond', () => {
    expect(storedEventBody(event())).toEqual({ member: { userId: 'bob' } });
  });

  it('leaves it out of an event without a group', () => {
    const { groupId: _, ...gameWide } = event({ type: 'game.user.banned', svcUserId: 'u' });
    expect(storedEventBody(gameWide)).toEqual({ member: { userId: 'bob' }, svcUserId: 'u' });
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

  it('leaves the event it was given as it was: the bus publishes that one', () => {
    const e = event();
    const copy = structuredClone(e);
    storedEventBody(e);
    expect(e).toEqual(copy);
  });
});
