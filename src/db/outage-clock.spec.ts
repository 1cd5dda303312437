import { OutageClock } from './outage-clock';

describe('OutageClock', () => {
  it('starts up, with no period and no time down', () => {
    const sut = new OutageClock();

    expect(sut.down).toBe(false);
    expect(sut.periods).toBe(0);
    expect(sut.seconds(5_000)).toBe(0);
  });

  it('counts one period for a run of failures, ended by the first success', () => {
    const sut = new OutageClock();
    sut.failed(1_000);
    sut.failed(1_500);
    sut.failed(2_000);

    expect(sut.down).toBe(true);
    expect(sut.periods).toBe(1);
    expect(sut.seconds(3_000)).toBe(2);
    sut.succeeded(4_000);
    expect(sut.down).toBe(false);
    expect(sut.seconds(10_000)).toBe(3);
  });

  it('adds up several periods, and ignores successes while up', () => {
    const sut = new OutageClock();
    sut.succeeded(0);
    sut.failed(1_000);
    sut.succeeded(2_000);
    sut.succeeded(2_500);
    sut.failed(5_000);
    sut.succeeded(5_500);

    expect(sut.periods).toBe(2);
    expect(sut.seconds(9_000)).toBe(1.5);
  });

  it('never goes backwards when the clock does', () => {
    const sut = new OutageClock();
    sut.failed(5_000);

    expect(sut.seconds(4_000)).toBe(0);
    sut.succeeded(4_000);
    expect(sut.seconds(6_000)).toBe(0);
  });
});
