import { isRetryableConflict, rolledBack } from './unit-of-work';

describe('isRetryableConflict', () => {
  it('retries serialization failures, deadlocks and a member row inserted after the snapshot', () => {
    expect(isRetryableConflict({ code: '40001' })).toBe(true);
    expect(isRetryableConflict({ code: '40P01' })).toBe(true);
    expect(isRetryableConflict({ code: '23505', constraint: 'members_group_id_user_id_key' })).toBe(true);
  });

  it('does not retry other unique violations or other errors', () => {
    expect(isRetryableConflict({ code: '23505', constraint: 'groups_pkey' })).toBe(false);
    expect(isRetryableConflict({ code: '23505' })).toBe(false);
    expect(isRetryableConflict({ code: '57014' })).toBe(false);
    expect(isRetryableConflict(new Error('boom'))).toBe(false);
  });
});

describe('rolledBack', () => {
  it('takes an error PostgreSQL answered for the statement as a transaction rolled back', () => {
    for (const code of ['57014', '40P01', '23505', '53200', 'XX000', '25P03']) expect(rolledBack({ code })).toBe(true);
  });

  it('leaves the outcome unknown when the connection or the session ended', () => {
    for (const err of [{ code: '57P01' }, { code: '57P02' }, { code: '08006' }, { code: 'ECONNRESET' }, new Error('Connection terminated unexpectedly')]) {
      expect(rolledBack(err)).toBe(false);
    }
  });
});
