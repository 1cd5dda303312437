import { ApiError } from '../common/errors/api-error';
import { parseNotificationId } from './notification-stream-opener';

const ID = '019a7c3e-5f10-7a1b-8c3d-4e5f6a7b8c9d';

describe('parseNotificationId (a stream\'s resume id)', () => {
  it('takes a notification id, in either case (as a uuid), and the last of repeated values', () => {
    expect(parseNotificationId(ID, 'after')).toBe(ID);
    expect(parseNotificationId(ID.toUpperCase(), 'after')).toBe(ID);
    expect(parseNotificationId(['nope', ID], 'after')).toBe(ID);
    expect(parseNotificationId(undefined, 'after')).toBeUndefined();
  });

  it.each(['', 'nope', '019a7c3e5f10a1b2c3d4e5f6', `${ID}0`])('refuses %j with a 400 naming the field', (raw) => {
    for (const field of ['after', 'Last-Event-ID']) {
      const sut = () => parseNotificationId(raw, field);
      expect(sut).toThrow(ApiError);
      expect(sut).toThrow(new RegExp(`^${field} must be a notification id`));
    }
  });
});
