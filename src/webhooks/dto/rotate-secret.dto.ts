import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

export const DEFAULT_GRACE_SECONDS = 3600;
export const MAX_GRACE_SECONDS = 86_400;
const GRACE_MESSAGE = `graceSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`;

export class RotateSecretDto {
  @ApiPropertyOptional({ minLength: 16, maxLength: 256, description: 'the new secret; generated (32 random bytes, base64url) when omitted' })
  @IsOptional()
  @IsString()
  @Length(16, 256, { message: 'secret must be a string of 16-256 characters' })
  secret?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_GRACE_SECONDS,
    default: DEFAULT_GRACE_SECONDS,
    description: 'how long the replaced secret goes on signing beside the new one; 0 drops it at once',
  })
  @IsOptional()
  @IsInt({ message: GRACE_MESSAGE })
  @Min(0, { message: GRACE_MESSAGE })
  @Max(MAX_GRACE_SECONDS, { message: GRACE_MESSAGE })
  graceSeconds?: number;
}

export class RotatedSecretDto {
  @ApiProperty({ description: 'the new signing secret: returned only in this response' }) secret!: string;
  @ApiProperty({ description: 'the new secret for Standard Webhooks libraries: whsec_ and the base64 of its UTF-8 bytes' }) standardSecret!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when the replaced secret stops signing; null with graceSeconds 0' })
  previousSecretExpiresAt!: string | null;
}
