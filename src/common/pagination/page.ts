import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** The list envelope of SPEC §1.8. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `limit` and `cursor` of a keyset-paginated list; checked by the page rule, not here. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'page size, from 1 to the page cap (SVC_MAX_PAGE_SIZE)' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'the nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

/** Builds a page from `limit + 1` fetched rows: the extra row only says that more remain. */
export function toPage<R, T>(rows: R[], limit: number, map: (r: R) => T, cursorOf: (r: R) => string): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return { items: items.map(map), nextCursor: more ? cursorOf(items[items.length - 1]) : null };
}

/** A Page already serialised, for a list that writes its items' JSON itself; sent as it is. */
export type PageJson = string & { readonly __pageJson: unique symbol };

/** toPage's page as JSON.stringify writes it, each item written by `itemJson`. */
export function toPageJson<R>(rows: R[], limit: number, itemJson: (r: R) => string, cursorOf: (r: R) => string): PageJson {
  const n = Math.min(rows.length, limit);
  let items = '';
  for (let i = 0; i < n; i++) items += i === 0 ? itemJson(rows[i]) : `,${itemJson(rows[i])}`;
  const nextCursor = rows.length > limit ? JSON.stringify(cursorOf(rows[n - 1])) : 'null';
  return `{"items":[${items}],"nextCursor":${nextCursor}}` as PageJson;
}

/** Documents a `Page<T>` response. */
export function ApiPageResponse(model: Type<unknown>, description = 'A page of results') {
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['items', 'nextCursor'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(model) } },
          nextCursor: { type: 'string', nullable: true },
        },
      },
    }),
  );
}
