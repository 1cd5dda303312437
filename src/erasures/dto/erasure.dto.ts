import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsOptional, IsString, IsUUID, Matches, ValidateNested } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { IsIsoTimestamp } from '../../common/validation/is-iso-timestamp';

/** At most this many entries in one apply: a year of erasures for a large studio, in one transaction. */
export const MAX_APPLY_ENTRIES = 100_000;

/** One recorded erasure: never the user's id, only its one-way hash. */
export class ErasureEntryDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  gameId!: string;

  @ApiProperty({
    description: 'SHA-256 (hex) of `<gameId>:<userId>`, the erased external id; one-way, but an id from a small set can be guessed by trying them',
    example: '9f2d0c3e5b7a4c1d8e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d',
  })
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: 'subjectHash must be 64 lowercase hex characters' })
  subjectHash!: string;

  @ApiProperty({ format: 'date-time' })
  @IsIsoTimestamp()
  erasedAt!: string;
}

export class ListErasuresQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'only erasures at or after this instant (ISO 8601)' })
  @IsOptional()
  @IsString()
  since?: string;
}

export class ApplyErasuresDto {
  @ApiProperty({ type: [ErasureEntryDto], description: `ledger entries as GET /v1/admin/erasures lists them; at most ${MAX_APPLY_ENTRIES}` })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_APPLY_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => ErasureEntryDto)
  items!: ErasureEntryDto[];
}

export class ApplyErasuresResultDto {
  @ApiProperty({ description: 'entries applied (every entry of the request); the ledger gains those it lacked', example: 12 })
  applied!: number;

  @ApiProperty({ description: 'users erased again: restored from a backup, or new since under an erased id', example: 1 })
  erased!: number;
}
