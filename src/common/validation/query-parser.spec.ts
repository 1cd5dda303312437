import 'reflect-metadata';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ListMembersQueryDto } from '../../members/dto/member.dto';
import { MEMBER_STATUSES } from '../../members/member-row';
import { GroupsAllowingQueryDto } from '../../permissions/dto/effective-permissions.dto';
import { PageQueryDto } from '../pagination/page';
import { SvcValidationPipe } from './validation.pipe';

// The two queries as they were declared for class-validator: the hand-written checks must answer
// every query exactly as these did through the same pipe.
class DecoratedGroupsAllowingQuery extends PageQueryDto {
  @IsString({ message: 'permission must be 1-128 characters' })
  @MinLength(1, { message: 'permission must be 1-128 characters' })
  @MaxLength(128, { message: 'permission must be 1-128 characters' })
  permission!: string;

  @IsOptional()
  @IsString({ message: 'kind must be 1-64 characters' })
  @MinLength(1, { message: 'kind must be 1-64 characters' })
  @MaxLength(64, { message: 'kind must be 1-64 characters' })
  kind?: string;
}

class DecoratedListMembersQuery extends PageQueryDto {
  @IsOptional()
  @IsIn([...MEMBER_STATUSES, 'all'], { message: `status must be one of ${[...MEMBER_STATUSES, 'all'].join(', ')}` })
  status?: string;

  @IsOptional()
  @IsString({ message: 'permission must be 1-128 characters' })
  @MinLength(1, { message: 'permission must be 1-128 characters' })
  @MaxLength(128, { message: 'permission must be 1-128 characters' })
  permission?: string;
}

const pipe = new SvcValidationPipe();

/** What the pipe makes of a query: the refusal's message, or the fields it passes on. */
async function outcome(metatype: new () => object, query: unknown): Promise<string> {
  try {
    const value = await pipe.transform(query, { type: 'query', metatype, data: undefined });
    return `ok ${JSON.stringify(Object.entries(value as object).sort(([a], [b]) => a.localeCompare(b)))}`;
  } catch (err) {
    return `refused ${(err as Error).message}`;
  }
}

const VALUES: unknown[] = [
  undefined,
  '',
  'a',
  'guild.invite',
  'active',
  'all',
  'invited',
  'Active',
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(128),
  'x'.repeat(129),
  '😀'.repeat(128), // 256 UTF-16 units, 128 characters as class-validator counts them
  '😀'.repeat(129),
  'é\uFE0F'.repeat(70),
  'a\u0000b',
  ['a', 'b'],
  ['active', 'left'],
  [],
  null,
];

const PLAUSIBLE: Record<string, unknown[]> = {
  permission: ['guild.invite', 'k', '😀'.repeat(128)],
  kind: ['guild', 'party'],
  status: ['active', 'all', 'banned'],
  limit: ['10', '0', 'abc'],
  cursor: ['eyJ4Ijoxfq'],
  other: ['1'],
};

/** A small deterministic generator, so a failure names a query that can be run again. */
function* queries(names: readonly string[], count: number): Generator<Record<string, unknown>> {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed >>> 8) % n;
  };
  for (let i = 0; i < count; i++) {
    const q: Record<string, unknown> = {};
    for (const name of names) {
      // Mostly absent or plausible, so that queries every check passes come up too.
      const pick = next(6);
      if (pick === 0) continue;
      const v = pick < 4 ? PLAUSIBLE[name]?.[next(PLAUSIBLE[name].length)] : VALUES[next(VALUES.length)];
      if (v !== undefined || next(2)) q[name] = v;
    }
    if (next(8) === 0) q['bad\u0000key'] = 'x';
    yield q;
  }
}

describe('queryParser: the hand-written list queries answer as class-validator did', () => {
  const cases: [string, new () => object, new () => object, string[]][] = [
    ['groups allowing a key', GroupsAllowingQueryDto, DecoratedGroupsAllowingQuery, ['permission', 'kind', 'limit', 'cursor', 'other']],
    ['members of a group', ListMembersQueryDto, DecoratedListMembersQuery, ['status', 'permission', 'limit', 'cursor', 'other']],
  ];

  it.each(cases)('%s: 3,000 generated queries, each with the same answer', async (_name, hand, decorated, names) => {
    let refused = 0;
    for (const q of queries(names, 3000)) {
      const [got, want] = [await outcome(hand, q), await outcome(decorated, q)];
      if (got !== want) throw new Error(`query ${JSON.stringify(q)}: got ${got}, class-validator said ${want}`);
      if (want.startsWith('refused')) refused++;
    }
    // Both kinds of answer were tried, several refusals at once among them.
    expect(refused).toBeGreaterThan(500);
    expect(refused).toBeLessThan(2900);
  });

  it('names every failing parameter in order, and a repeated one as repeated', async () => {
    expect(await outcome(ListMembersQueryDto, { status: 'x', permission: '', limit: ['1', '2'] })).toBe(
      `refused status must be one of ${[...MEMBER_STATUSES, 'all'].join(', ')}; permission must be 1-128 characters; limit must be a string`,
    );
    expect(await outcome(GroupsAllowingQueryDto, { permission: ['a', 'b'] })).toBe('refused permission must be given once, not 2 times');
    expect(await outcome(GroupsAllowingQueryDto, {})).toBe('refused permission must be 1-128 characters');
    expect(await outcome(GroupsAllowingQueryDto, { permission: 'k', cursor: 'a\u0000' })).toBe('refused cursor must not contain the NUL character (\\u0000)');
    expect(await outcome(GroupsAllowingQueryDto, { permission: 'k', junk: '1' })).toBe('ok [["permission","k"]]');
  });
});
