import { NOTIFICATION_KINDS, parseKinds } from './notification-kinds';

describe('the kinds filter', () => {
  it('reads a comma-separated list, spaces around the names allowed, repeats once', () => {
    const sut = parseKinds(' invitation.received,member.kicked ,invitation.received');
    expect(sut).toEqual(['invitation.received', 'member.kicked']);
  });

  it('takes every kind', () => {
    expect(parseKinds(NOTIFICATION_KINDS.join(','))).toEqual([...NOTIFICATION_KINDS]);
  });

  it.each([
    ['an empty list', '', 'an empty name'],
    ['an empty name', 'member.kicked,,member.banned', 'an empty name'],
    ['a name that is no kind', 'member.kicked,member.left', '"member.left"'],
    ['a kind in another case', 'Member.Kicked', '"Member.Kicked"'],
  ])('is 400 naming kinds for %s', (_case, raw, named) => {
    expect(() => parseKinds(raw)).toThrow(expect.objectContaining({ code: 'bad_request', message: expect.stringMatching(new RegExp(`^kinds .*${named.replace(/\./g, '\\.')} is none$`)) }));
  });
});
