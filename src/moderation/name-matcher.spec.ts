import { compileNameMatcher, NameList, NameMatch } from './name-matcher';

const policy = {
  blocked: ['crap', 'scum', 'noob', 'toxic', 'ass', 'hell', 'l33t', 'b1te', 'Bad Word', 'aardvark', '...'],
  reserved: ['Admin', 'Staff', 'moderator', 'official', 'gm', 'Dév'],
};
const matcher = compileNameMatcher(policy);

type Expected = [word: string, list: NameList, start: number, end: number];
const m = (word: string, list: NameList, start: number, end: number): Expected => [word, list, start, end];
const shape = (found: NameMatch[]): Expected[] => found.map((f) => [f.word, f.list, f.start, f.end]);

/** Text, then every match expected in it (none: the text is clean). */
const table: [string, ...Expected[]][] = [
  // plain words and their case
  ['admin', m('Admin', 'reserved', 0, 5)],
  ['ADMIN', m('Admin', 'reserved', 0, 5)],
  ['AdMiN', m('Admin', 'reserved', 0, 5)],
  ['staff', m('Staff', 'reserved', 0, 5)],
  ['crap', m('crap', 'blocked', 0, 4)],
  ['the admin', m('Admin', 'reserved', 4, 9)],
  ['admin guild', m('Admin', 'reserved', 0, 5)],
  ['Team Admin Crew', m('Admin', 'reserved', 5, 10)],
  ['hello world'],
  ['friendly folks'],
  [''],
  ['   '],
  ['!!!'],
  // look-alikes
  ['ADM1N', m('Admin', 'reserved', 0, 5)],
  ['4dmin', m('Admin', 'reserved', 0, 5)],
  ['@dmin', m('Admin', 'reserved', 0, 5)],
  ['5taff', m('Staff', 'reserved', 0, 5)],
  ['$taff', m('Staff', 'reserved', 0, 5)],
  ['s7aff', m('Staff', 'reserved', 0, 5)],
  ['m0derat0r', m('moderator', 'reserved', 0, 9)],
  ['m0d3r4t0r', m('moderator', 'reserved', 0, 9)],
  ['0ffici4l', m('official', 'reserved', 0, 8)],
  ['offic1a1', m('official', 'reserved', 0, 8)],
  ['toxlc'],
  ['tox1c', m('toxic', 'blocked', 0, 5)],
  ['n00b', m('noob', 'blocked', 0, 4)],
  ['cr4p', m('crap', 'blocked', 0, 4)],
  ['@$$', m('ass', 'blocked', 0, 3)],
  ['4ss', m('ass', 'blocked', 0, 3)],
  ['h3ll', m('hell', 'blocked', 0, 4)],
  ['h311', m('hell', 'blocked', 0, 4)],
  ['he1l', m('hell', 'blocked', 0, 4)],
  ['heii'],
  // listed words are normalized the same way
  ['leet', m('l33t', 'blocked', 0, 4)],
  ['LEET', m('l33t', 'blocked', 0, 4)],
  ['1eet', m('l33t', 'blocked', 0, 4)],
  ['l33t', m('l33t', 'blocked', 0, 4)],
  ['bite', m('b1te', 'blocked', 0, 4)],
  ['blte', m('b1te', 'blocked', 0, 4)],
  ['b1te', m('b1te', 'blocked', 0, 4)],
  ['bote'],
  ['badword', m('Bad Word', 'blocked', 0, 7)],
  ['bad word', m('Bad Word', 'blocked', 0, 8)],
  ['bad-w0rd', m('Bad Word', 'blocked', 0, 8)],
  ['dev', m('Dév', 'reserved', 0, 3)],
  ['DÉV', m('Dév', 'reserved', 0, 3)],
  ['...'],
  // accents and other forms of the same letters
  ['ádmin', m('Admin', 'reserved', 0, 5)],
  ['ÀDMÎN', m('Admin', 'reserved', 0, 5)],
  ['a\u0301dmin', m('Admin', 'reserved', 0, 6)],
  ['admin\u0301', m('Admin', 'reserved', 0, 6)],
  ['ｓｔａｆｆ', m('Staff', 'reserved', 0, 5)],
  ['ſtaff', m('Staff', 'reserved', 0, 5)],
  ['staﬀ', m('Staff', 'reserved', 0, 4)],
  ['Ståff', m('Staff', 'reserved', 0, 5)],
  ['şcum', m('scum', 'blocked', 0, 4)],
  // separators between letters
  ['a.d.m.i.n', m('Admin', 'reserved', 0, 9)],
  ['a d m i n', m('Admin', 'reserved', 0, 9)],
  ['a-d-m-i-n', m('Admin', 'reserved', 0, 9)],
  ['a_d_m_i_n', m('Admin', 'reserved', 0, 9)],
  ['a  d...m\ti  n', m('Admin', 'reserved', 0, 13)],
  ['ad.min', m('Admin', 'reserved', 0, 6)],
  ['adm in', m('Admin', 'reserved', 0, 6)],
  ['S-T-A-F-F crew', m('Staff', 'reserved', 0, 9)],
  ['the a.d.m.i.n team', m('Admin', 'reserved', 4, 13)],
  ['[admin]', m('Admin', 'reserved', 1, 6)],
  ['<<admin>>', m('Admin', 'reserved', 2, 7)],
  ['admin!', m('Admin', 'reserved', 0, 5)],
  ['x.admin', m('Admin', 'reserved', 2, 7)],
  ['admin.x', m('Admin', 'reserved', 0, 5)],
  ['a★d★m★i★n', m('Admin', 'reserved', 0, 9)],
  ['a·d·m·i·n', m('Admin', 'reserved', 0, 9)],
  // repeats between and around letters
  ['aaadmin', m('Admin', 'reserved', 0, 7)],
  ['adddmmmiiinnn', m('Admin', 'reserved', 0, 13)],
  ['AAAADMIN', m('Admin', 'reserved', 0, 8)],
  ['a4@dmin', m('Admin', 'reserved', 0, 7)],
  ['admi1in', m('Admin', 'reserved', 0, 7)],
  ['staaaaff', m('Staff', 'reserved', 0, 8)],
  ['stafffff', m('Staff', 'reserved', 0, 8)],
  ['staf'],
  ['a a d m i n', m('Admin', 'reserved', 0, 11)],
  ['aardvark', m('aardvark', 'blocked', 0, 8)],
  ['aaardvark', m('aardvark', 'blocked', 0, 9)],
  ['ardvark'],
  // a listed word inside a longer word does not count
  ['badminton'],
  ['xadmin'],
  ['adminx'],
  ['administrator'],
  ['sysadmin'],
  ['classic'],
  ['passage'],
  ['assassin'],
  ['hello'],
  ['shell'],
  ['scrap'],
  ['craps'],
  ['scumbling'],
  ['dogma'],
  ['staffing'],
  ['unofficial'],
  ['toxicity'],
  ['Scunthorpe United'],
  ['badminton club'],
  ['the classic crew'],
  ['b a d m i n t o n'],
  ['x a d m i n'],
  ['a d m i n s'],
  ['badmin'],
  ['adminadmin'],
  // digits are word characters: a number joined to a word makes a longer word
  ['admin123'],
  ['admin2'],
  ['2admin'],
  ['admin 123', m('Admin', 'reserved', 0, 5)],
  ['admin_123', m('Admin', 'reserved', 0, 5)],
  ['123 admin', m('Admin', 'reserved', 4, 9)],
  ['gm7'],
  ['gm 7', m('gm', 'reserved', 0, 2)],
  // spelled-out letters read as one word
  ['a d m'],
  ['g m', m('gm', 'reserved', 0, 3)],
  ['g m x'],
  ['x g m'],
  ['I am gm', m('gm', 'reserved', 5, 7)],
  ['gm I am', m('gm', 'reserved', 0, 2)],
  ['s t a f f', m('Staff', 'reserved', 0, 9)],
  ['s t a f f s'],
  ['a d m i n s t a f f'],
  ['h e l l o'],
  // several words
  ['admin staff', m('Admin', 'reserved', 0, 5), m('Staff', 'reserved', 6, 11)],
  ['crap admin', m('crap', 'blocked', 0, 4), m('Admin', 'reserved', 5, 10)],
  ['admin-admin', m('Admin', 'reserved', 0, 5), m('Admin', 'reserved', 6, 11)],
  ['n00b 5taff of t0xic cr4p', m('noob', 'blocked', 0, 4), m('Staff', 'reserved', 5, 10), m('toxic', 'blocked', 14, 19), m('crap', 'blocked', 20, 24)],
  ['the official gm', m('official', 'reserved', 4, 12), m('gm', 'reserved', 13, 15)],
  ['ass hell', m('ass', 'blocked', 0, 3), m('hell', 'blocked', 4, 8)],
  // offsets count UTF-16 units of the text as given
  ['🐉 admin', m('Admin', 'reserved', 3, 8)],
  ['🐉🐉admin', m('Admin', 'reserved', 4, 9)],
  ['🐉🐉 staff 🐉', m('Staff', 'reserved', 5, 10)],
  ['ｔｈｅ ａｄｍｉｎ', m('Admin', 'reserved', 4, 9)],
  ['é admin', m('Admin', 'reserved', 2, 7)],
  ['e\u0301 admin', m('Admin', 'reserved', 3, 8)],
  // other scripts are letters too
  ['管理admin'],
  ['管理 admin', m('Admin', 'reserved', 3, 8)],
  ['админ'],
];

describe('name matcher: table', () => {
  it.each(table.map((row) => [row[0], row.slice(1)] as [string, Expected[]]))('%j', (text, expected) => {
    expect(shape(matcher.match(text))).toEqual(expected);
  });
});

/** Each listed word dressed the ways players dress words; all found, with offsets spanning the dressing. */
const disguises: [label: string, dress: (w: string) => string][] = [
  ['upper', (w) => w.toUpperCase()],
  ['title', (w) => w[0].toUpperCase() + w.slice(1)],
  ['dotted', (w) => [...w].join('.')],
  ['spaced', (w) => [...w].join(' ')],
  ['dashed', (w) => [...w].join('-')],
  ['underscored', (w) => [...w].join('_')],
  ['doubled', (w) => [...w].map((c) => c + c).join('')],
  ['first tripled', (w) => w[0].repeat(3) + w.slice(1)],
  ['last tripled', (w) => w + w[w.length - 1].repeat(2)],
  ['accented', (w) => w.replace(/a/g, 'á').replace(/e/g, 'ë').replace(/o/g, 'ô').replace(/u/g, 'ü').replace(/i/g, 'í')],
  ['look-alikes', (w) => w.replace(/o/g, '0').replace(/e/g, '3').replace(/a/g, '4').replace(/s/g, '5').replace(/t/g, '7').replace(/i/g, '1')],
  ['symbols', (w) => w.replace(/a/g, '@').replace(/s/g, '$')],
  ['full width', (w) => String.fromCharCode(...[...w].map((c) => c.charCodeAt(0) + 0xfee0))],
];
const words = ['admin', 'staff', 'moderator', 'official', 'crap', 'scum', 'noob', 'toxic'];
const listOf = (w: string): NameList => (policy.blocked.includes(w) ? 'blocked' : 'reserved');
const listed = (w: string) => [...policy.blocked, ...policy.reserved].find((x) => x.toLowerCase() === w) as string;

describe('name matcher: disguised words', () => {
  const rows = words.flatMap((w) => disguises.map(([label, dress]) => [w, label, dress(w)] as const));
  it.each(rows)('%s %s: %j', (w, _label, dressed) => {
    const text = `the ${dressed} guild`;
    expect(shape(matcher.match(text))).toEqual([m(listed(w), listOf(w), 4, 4 + dressed.length)]);
  });

  const wrapped = words.flatMap((w) => [
    [w, `x${w}`],
    [w, `${w}x`],
    [w, `pre${w}post`],
    [w, `${w}${w}`],
    [w, `${w}9`],
    [w, `x ${[...w].join(' ')}`],
  ]);
  it.each(wrapped)('%s inside a longer word: %j', (_w, text) => {
    expect(matcher.match(text)).toEqual([]);
  });
});

describe('name matcher: policies', () => {
  it('finds nothing with an empty policy', () => {
    expect(compileNameMatcher({ blocked: [], reserved: [] }).match('admin')).toEqual([]);
  });

  it('reports a word on both lists once per list', () => {
    const both = compileNameMatcher({ blocked: ['admin'], reserved: ['admin'] });
    expect(shape(both.match('admin'))).toEqual([m('admin', 'blocked', 0, 5), m('admin', 'reserved', 0, 5)]);
  });

  it('reports two spellings that normalize alike each under its own spelling, and a repeated entry once', () => {
    const twice = compileNameMatcher({ blocked: ['Admin', 'ADM1N', 'Admin'], reserved: [] });
    expect(shape(twice.match('admin'))).toEqual([m('ADM1N', 'blocked', 0, 5), m('Admin', 'blocked', 0, 5)]);
  });

  it('reads spelled-out letters as one word, and words apart as words', () => {
    const short = compileNameMatcher({ blocked: ['ad', 'min'], reserved: [] });
    expect(short.match('a d m i n')).toEqual([]);
    expect(shape(short.match('ad min'))).toEqual([m('ad', 'blocked', 0, 2), m('min', 'blocked', 3, 6)]);
    expect(shape(short.match('a d  min'))).toEqual([m('ad', 'blocked', 0, 3), m('min', 'blocked', 5, 8)]);
  });

  it('finds a word and a longer word sharing its start, each where it stands', () => {
    const nested = compileNameMatcher({ blocked: ['star', 'star wars'], reserved: [] });
    expect(shape(nested.match('star wars'))).toEqual([m('star', 'blocked', 0, 4), m('star wars', 'blocked', 0, 9)]);
    expect(shape(nested.match('starwars'))).toEqual([m('star wars', 'blocked', 0, 8)]);
  });

  it('checks a 120-character name against 1,000 words well inside 0.1 ms', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `w${i.toString(36)}rd${i % 7}x`);
    const big = compileNameMatcher({ blocked: many.slice(0, 500), reserved: [...many.slice(500), 'admin'] });
    const name = 'The Offic1al Adm1n Sq.u.a.d of the Northern Reaches - badminton league, wrd champions 2026 & friends of every guild!!'.padEnd(120, '~');
    for (let i = 0; i < 2000; i++) big.match(name);
    const runs = 5000;
    const began = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) big.match(name);
    const perCall = Number(process.hrtime.bigint() - began) / runs / 1e6;
    expect(shape(big.match(name))).toEqual([m('admin', 'reserved', 13, 18)]);
    // Loose here (a shared test machine); the bench holds the 0.1 ms target.
    expect(perCall).toBeLessThan(0.5);
  });
});
