import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateIf } from 'class-validator';

/** The optional expiry of a grant (EXTENSIONS X8): one of the two fields, or neither for a permanent grant. */
export class GrantExpiryDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '7d',
    description: 'how long the grant lasts: a positive integer then s, m, h or d, at most 365d; not with expiresAt',
  })
  @ValidateIf((o: GrantExpiryDto) => o.expiresIn !== undefined && o.expiresIn !== null)
  @IsString({ message: 'expiresIn must be a string such as 30m, 2h or 7d' })
  expiresIn?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'when the grant ends: an ISO 8601 timestamp in the future, at most 365 days ahead; not with expiresIn',
  })
  @ValidateIf((o: GrantExpiryDto) => o.expiresAt !== undefined && o.expiresAt !== null)
  @IsString({ message: 'expiresAt must be an ISO 8601 timestamp' })
  expiresAt?: string | null;
}
