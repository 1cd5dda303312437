import { isRetryableConflict } from './unit-of-work';

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
