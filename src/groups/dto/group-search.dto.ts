import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MAX_TAGS } from '../group-row';
import { SEARCH_SORTS, type SearchSort } from '../group-search.repository';

/**
 * The query of GET /v1/groups/search (EXTENSIONS X5). Every value arrives as a string; the rules
 * (ranges, combinations, the cursor) are checked in one place, parseSearchQuery, so that each
 * refusal names its parameter.
 */
export class SearchGroupsQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 120,
    example: 'knights',
    description:
      'words to find in the name, each of them, ignoring case and accents; a word of 4 or more characters also finds a name within a small spelling distance ("knigths" finds "Knights of Dawn")',
  })
  @IsOptional()
  @IsString({ message: 'q must be a single string of 1-120 characters' })
  q?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 64, example: 'guild', description: 'only groups of this kind (exact)' })
  @IsOptional()
  @IsString({ message: 'kind must be a single string of 1-64 characters' })
  kind?: string;

  @ApiPropertyOptional({
    example: 'lang:en,region:eu',
    description: `comma-separated tags (at most ${MAX_TAGS}); a group must carry every one`,
  })
  @IsOptional()
  @IsString({ message: 'tags must be a single comma-separated list' })
  tags?: string;

  @ApiPropertyOptional({ enum: ['true'], description: 'only groups a player can join now: public, and below maxMembers' })
  @IsOptional()
  @IsString({ message: 'open must be true, or left out' })
  open?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'at least this many active members (inclusive); may read a count up to 5 s old' })
  @IsOptional()
  @IsString({ message: 'membersAtLeast must be a single integer' })
  membersAtLeast?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'at most this many active members (inclusive; not below membersAtLeast); may read a count up to 5 s old',
  })
  @IsOptional()
  @IsString({ message: 'membersAtMost must be a single integer' })
  membersAtMost?: string;

  @ApiPropertyOptional({
    enum: SEARCH_SORTS,
    description:
      'relevance (the default with q, and only with q): names starting with the first word, then names holding every word, then matches by spelling distance, ties by id ascending; members: most first (a count up to 5 s old), ties by id descending; newest: ties by id descending; name: A-Z ignoring case and accents, ties by id ascending. The default without q is members',
  })
  @IsOptional()
  @IsString({ message: `sort must be one of ${SEARCH_SORTS.join(', ')}` })
  sort?: SearchSort;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'page size, from 1 to 100' })
  @IsOptional()
  @IsString({ message: 'limit must be a single integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional({ description: 'the nextCursor of the previous page of the same search (same q, filters and sort)' })
  @IsOptional()
  @IsString({ message: 'cursor must be a single string' })
  cursor?: string;
}
