import { RequestTally } from './request-tally';

describe('RequestTally', () => {
  const readings = (tally: RequestTally) => [...tally.readings()];

  it('counts each answer in the first bucket whose bound it does not exceed, cumulatively', () => {
    const tally = new RequestTally([0.01, 0.1, 1]);
    tally.record('/v1/groups/:id', 'GET', 200, 0.01);
    tally.record('/v1/groups/:id', 'GET', 204, 0.05);
    tally.record('/v1/groups/:id', 'GET', 201, 7);

    const [only, ...others] = readings(tally);
    expect(others).toEqual([]);
    expect(only).toEqual({ labels: { route: '/v1/groups/:id', method: 'GET', status_class: '2xx' }, cumulative: [1, 2, 2, 3], count: 3, sum: expect.any(Number) });
    expect(only.sum).toBeCloseTo(7.06, 10);
  });

  it('keeps one series per route, method and status class, and a broken status as other', () => {
    const tally = new RequestTally([1]);
    tally.record('/a', 'GET', 200, 0.5);
    tally.record('/a', 'GET', 404, 0.5);
    tally.record('/a', 'POST', 503, 0.5);
    tally.record('/b', 'GET', 200, 0.5);
    tally.record('/b', 'GET', 999, 0.5);

    expect(readings(tally).map((r) => Object.values(r.labels).join(' '))).toEqual([
      '/a GET 2xx',
      '/a GET 4xx',
      '/a POST 5xx',
      '/b GET other',
      '/b GET 2xx',
    ]);
    expect(readings(tally).every((r) => r.count === 1 && r.cumulative.join() === '1,1')).toBe(true);
  });

  it.each([
    [100, '1xx'],
    [200, '2xx'],
    [204, '2xx'],
    [301, '3xx'],
    [404, '4xx'],
    [429, '4xx'],
    [499, '4xx'],
    [500, '5xx'],
    [503, '5xx'],
    [599, '5xx'],
    [0, 'other'],
    [99, 'other'],
    [600, 'other'],
    [999, 'other'],
    [-1, 'other'],
    [Number.NaN, 'other'],
  ])('puts status %d in the class %s', (status, expected) => {
    const tally = new RequestTally([1]);
    tally.record('/a', 'GET', status, 0.5);
    expect(readings(tally)[0].labels.status_class).toBe(expected);
  });

  it('reads nothing before the first answer', () => {
    expect(readings(new RequestTally([1]))).toEqual([]);
  });
});
