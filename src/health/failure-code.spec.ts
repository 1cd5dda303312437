import { failureCode } from './health.service';

describe('failureCode', () => {
  it('names an errno or a SQLSTATE, never the message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.3.7:5432'), { code: 'ECONNREFUSED' });
    expect(failureCode(refused)).toBe('ECONNREFUSED');
    expect(failureCode(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe('57P01');
  });

  it('falls back to the error class when the code is missing or not a plain code', () => {
    expect(failureCode(new TypeError('at 10.0.3.7:5432'))).toBe('TypeError');
    expect(failureCode(Object.assign(new Error('x'), { code: 'host 10.0.3.7:5432' }))).toBe('Error');
    expect(failureCode(Object.assign(new Error('x'), { code: 42 }))).toBe('Error');
  });
});
