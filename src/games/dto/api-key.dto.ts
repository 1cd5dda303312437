import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayContains, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import {
  API_KEY_SCOPES,
  MAX_KEY_LIFETIME_SECONDS,
  MIN_KEY_LIFETIME_SECONDS,
  type ApiKeyScope,
} from '../../common/auth/api-key-scopes';

const SCOPES_MESSAGE = 'scopes must be ["read"] or ["read", "write"]: distinct scopes, read always among them';
const EXPIRES_IN_MESSAGE = `expiresIn must be an integer number of seconds from ${MIN_KEY_LIFETIME_SECONDS} to ${MAX_KEY_LIFETIME_SECONDS} (10 years)`;
const NAME_MESSAGE = 'name must be a string of 1-64 characters, not blank, without control characters';
/**
 * Counted in code points, as the database's CHECK (char_length) counts them; without control
 * characters, so a name stays on its line of `key:list`.
 */
const NAME_PATTERN = /^[^\p{Cc}]{1,64}$/u;

const LAST_USED_DESCRIPTION =
  'when the key last authenticated a request, accurate to about a minute: each instance notes the uses it sees and ' +
  'writes them once a minute (and when it shuts down); null = no use recorded yet';

/** The body of a mint, which may be omitted: full control, no expiry. */
export class MintApiKeyDto {
  @ApiPropertyOptional({
    type: [String],
    enum: API_KEY_SCOPES,
    minItems: 1,
    uniqueItems: true,
    default: ['read', 'write'],
    example: ['read'],
    description: '`["read"]`: GET only, every other method is 403 permission_denied; `["read", "write"]` (the default): everything',
  })
  @ValidateIf((o: MintApiKeyDto) => o.scopes !== undefined)
  @IsArray({ message: SCOPES_MESSAGE })
  @ArrayNotEmpty({ message: SCOPES_MESSAGE })
  @IsIn(API_KEY_SCOPES, { each: true, message: SCOPES_MESSAGE })
  @ArrayUnique({ message: SCOPES_MESSAGE })
  @ArrayContains(['read'], { message: SCOPES_MESSAGE })
  scopes?: ApiKeyScope[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_KEY_LIFETIME_SECONDS,
    maximum: MAX_KEY_LIFETIME_SECONDS,
    example: 7_776_000,
    description: 'seconds until the key expires (expiresAt = now + expiresIn); omitted = never',
  })
  @ValidateIf((o: MintApiKeyDto) => o.expiresIn !== undefined)
  @IsInt({ message: EXPIRES_IN_MESSAGE })
  @Min(MIN_KEY_LIFETIME_SECONDS, { message: EXPIRES_IN_MESSAGE })
  @Max(MAX_KEY_LIFETIME_SECONDS, { message: EXPIRES_IN_MESSAGE })
  expiresIn?: number;

  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: 64,
    example: 'ci deploy',
    description: 'a label for operators, shown in key listings (1-64 characters, not blank, no control characters; not unique); omitted = none',
  })
  @ValidateIf((o: MintApiKeyDto) => o.name !== undefined)
  @IsString({ message: NAME_MESSAGE })
  @Matches(NAME_PATTERN, { message: NAME_MESSAGE })
  @Matches(/\S/, { message: NAME_MESSAGE })
  name?: string;
}

/** An API key record (SPEC §2): the secret half is never shown after minting. */
export class ApiKeyDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ example: 'jk_3f9c2a71d04b8e65', description: 'starts with jk_' }) prefix!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt!: string | null;
  @ApiProperty({ type: [String], enum: API_KEY_SCOPES, example: ['read', 'write'], description: 'read always; write for every method but GET' })
  scopes!: ApiKeyScope[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'from then on the key is refused (401 invalid_api_key); null = never' })
  expiresAt!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'ci deploy', description: 'the name given at the mint; null = none' })
  name!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: LAST_USED_DESCRIPTION })
  lastUsedAt!: string | null;
}

export class MintedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'the full key jk_<prefix>.<secret>, returned only once' })
  key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) items!: ApiKeyDto[];
}

/** What `GET /v1/whoami` tells a caller about the key it used. */
export class WhoamiDto {
  @ApiProperty() gameId!: string;
  @ApiProperty() gameName!: string;
  @ApiProperty() keyId!: string;
  @ApiProperty() keyPrefix!: string;
  @ApiProperty({ type: [String], enum: API_KEY_SCOPES, example: ['read', 'write'], description: 'what this key may do: read always, write for every method but GET' })
  scopes!: ApiKeyScope[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'when this key stops working; null = never' })
  expiresAt!: string | null;
}
