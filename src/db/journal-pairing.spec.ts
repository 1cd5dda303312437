import { eventId, journalKey } from '../common/ids';
import { auditIds } from './journal-pairing';

const G = '0190a000-0000-7000-8000-000000000001';
const H = '0190a000-0000-7000-8000-000000000002';
const A = '0190a000-0000-7000-8000-0000000000a1';
const B = '0190a000-0000-7000-8000-0000000000b1';

const event = (type: string, gameId: string, groupId?: string) => ({ id: eventId(), type, gameId, ...(groupId ? { groupId } : {}) });
const entry = (action: string, gameId: string, groupId?: string | null) => ({ action, gameId, ...(groupId !== undefined ? { groupId } : {}) });
const own = /^(?!.*00000000$)/;

describe('auditIds', () => {
  it('gives an audit entry the journal key of the event of its game and group', () => {
    const events = [event('member.joined', G, A)];

    expect(auditIds([entry('member.joined', G, A)], events)).toEqual([journalKey(events[0].id)]);
  });

  it('takes the event of the entry\'s own name first, whatever the order they were staged in', () => {
    const events = [event('group.created', G, A), event('member.joined', G, A)];

    const ids = auditIds([entry('member.joined', G, A), entry('group.created', G, A)], events);

    expect(ids).toEqual([journalKey(events[1].id), journalKey(events[0].id)]);
  });

  it('then pairs an entry with the first event left of its scope, each event once', () => {
    const events = [event('member.updated', G, A), event('member.updated', G, A)];

    const ids = auditIds([entry('member.role.assigned', G, A), entry('member.role.assigned', G, A), entry('member.role.assigned', G, A)], events);

    expect(ids.slice(0, 2)).toEqual(events.map((e) => journalKey(e.id)));
    expect(ids[2]).toMatch(own);
  });

  it('never pairs across games or groups, and tells a missing group from a group', () => {
    const events = [event('member.joined', H, A), event('member.joined', G, B), event('game.user.banned', G)];

    const ids = auditIds([entry('member.joined', G, A), entry('game.user.banned', G, null), entry('x', G)], events);

    expect(ids[0]).toMatch(own);
    expect(ids[1]).toBe(journalKey(events[2].id));
    expect(ids[2]).toMatch(own);
  });

  it('gives every entry of a transaction without events an id of its own', () => {
    const ids = auditIds([entry('webhook.created', G), entry('webhook.created', G)], []);

    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(own);
  });
});
