import { compileNameMatcher } from './name-matcher';
import { blockedFindings } from './names-scan.service';

describe('blockedFindings (names/scan)', () => {
  const matcher = compileNameMatcher({ blocked: ['scam', 'toxic'], reserved: ['admin'] });

  it('is null for a group whose name and tags hold no blocked word, reserved words included', () => {
    expect(blockedFindings(matcher, { name: 'Admin Fans', tags: ['admin', 'friendly'] })).toBeNull();
    expect(blockedFindings(matcher, { name: 'Scampi Lovers', tags: [] })).toBeNull();
  });

  it('names each blocked word once, in the name and in each tag that holds one', () => {
    expect(blockedFindings(matcher, { name: 'Sc4m scam T0x1c', tags: ['calm', 's_c_a_m'] })).toBe(
      'The name policy\'s blocked words: name "Sc4m scam T0x1c" holds scam, toxic; tag "s_c_a_m" holds scam',
    );
  });

  it('keeps within a report message (1,000 characters)', () => {
    const tags = Array.from({ length: 10 }, (_, i) => `scam-${'x'.repeat(20)}-${i}`);
    const found = blockedFindings(matcher, { name: `Scam ${'y'.repeat(110)}`, tags: tags.map((t) => `${t} toxic ${'z'.repeat(80)}`) });
    expect(found?.length).toBeLessThanOrEqual(1000);
  });
});
