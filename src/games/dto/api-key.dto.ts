import { ApiProperty } from '@nestjs/swagger';

/** An API key record (SPEC §2): the secret half is never shown after minting. */
export class ApiKeyDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ example: 'jk_3f9c2a71d04b8e65', description: 'starts with jk_' }) prefix!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt!: string | null;
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
}
