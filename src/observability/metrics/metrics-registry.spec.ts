import { parseSettings } from '../../config/settings';
import { MetricsRegistry } from './metrics-registry';
import { RequestTally } from './request-tally';

describe('MetricsRegistry', () => {
  const sut = () => new MetricsRegistry(parseSettings({ METRICS_PORT: '9464' }));

  it('is enabled by METRICS_PORT only', () => {
    expect(sut().enabled).toBe(true);
    expect(new MetricsRegistry(parseSettings({})).enabled).toBe(false);
  });

  describe('naming rules', () => {
    it('refuses a name without the svc_ prefix', () => {
      expect(() => sut().gauge({ name: 'guildhall_things', help: 'Things.' })).toThrow(/must start with svc_/);
    });

    it('refuses a family without a HELP text', () => {
      expect(() => sut().gauge({ name: 'svc_things', help: ' ' })).toThrow(/needs a HELP text/);
    });

    it('wants _total on counters, and on counters only', () => {
      expect(() => sut().counter({ name: 'svc_things', help: 'Things.' })).toThrow(/_total/);
      expect(() => sut().gauge({ name: 'svc_things_total', help: 'Things.' })).toThrow(/_total/);
      expect(() => sut().counter({ name: 'svc_things_total', help: 'Things.' })).not.toThrow();
    });
  });

  it('keeps each app\'s series apart: two registries never share one', async () => {
    const [one, two] = [sut(), sut()];
    one.counter({ name: 'svc_things_total', help: 'Things.' }).inc(3);
    two.counter({ name: 'svc_things_total', help: 'Things.' }).inc(5);

    expect(await one.metrics()).toContain('svc_things_total 3');
    expect(await two.metrics()).toContain('svc_things_total 5');
  });

  describe('counterOf', () => {
    it('reads the owner\'s running totals at scrape time, one series per label value', async () => {
      const registry = sut();
      const lookups = { hit: 0, miss: 0 };
      registry.counterOf({ name: 'svc_lookups_total', help: 'Lookups.', labelNames: ['result'] as const }, () => lookups);
      lookups.hit += 7;
      lookups.miss += 2;

      const text = await registry.metrics();
      expect(text).toContain('svc_lookups_total{result="hit"} 7');
      expect(text).toContain('svc_lookups_total{result="miss"} 2');
      lookups.hit += 1;
      expect(await registry.metrics()).toContain('svc_lookups_total{result="hit"} 8');
    });

    it('takes a plain number for a family without labels', async () => {
      const registry = sut();
      registry.counterOf({ name: 'svc_periods_total', help: 'Periods.' }, () => 4);

      expect(await registry.metrics()).toMatch(/^svc_periods_total 4$/m);
    });
  });

  describe('tallied', () => {
    it('writes a tally out as a counter and a histogram in the exposition format', async () => {
      const registry = sut();
      const tally = new RequestTally([0.01, 0.1]);
      registry.tallied({ name: 'svc_answers_total', help: 'Answers.' }, { name: 'svc_answer_seconds', help: 'Answer time.' }, tally);
      tally.record('/v1/x', 'GET', 200, 0.005);
      tally.record('/v1/x', 'GET', 200, 0.5);

      const lines = (await registry.metrics()).split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          '# TYPE svc_answers_total counter',
          'svc_answers_total{route="/v1/x",method="GET",status_class="2xx"} 2',
          '# TYPE svc_answer_seconds histogram',
          'svc_answer_seconds_bucket{route="/v1/x",method="GET",status_class="2xx",le="0.01"} 1',
          'svc_answer_seconds_bucket{route="/v1/x",method="GET",status_class="2xx",le="0.1"} 1',
          'svc_answer_seconds_bucket{route="/v1/x",method="GET",status_class="2xx",le="+Inf"} 2',
          'svc_answer_seconds_sum{route="/v1/x",method="GET",status_class="2xx"} 0.505',
          'svc_answer_seconds_count{route="/v1/x",method="GET",status_class="2xx"} 2',
        ]),
      );
    });

    it('applies the naming rules', () => {
      expect(() => sut().tallied({ name: 'svc_answers', help: 'A.' }, { name: 'svc_answer_seconds', help: 'T.' }, new RequestTally([1]))).toThrow(/_total/);
    });
  });
});
