import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { EVENT_TYPES } from '../../events/event-types';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../payload-formats';

const EVENTS_MESSAGE = `events must be an array of known event types (${EVENT_TYPES.join(', ')})`;

export class CreateWebhookDto {
  @ApiProperty({
    maxLength: 2000,
    example: 'https://studio.example.com/hooks/guildhall',
    description: 'http or https, to a public address (unless the server allows private hosts); credentials in it (user:password@) are used for delivery and never shown again',
  })
  @IsString({ message: 'url must be an http or https URL' })
  url!: string;

  @ApiPropertyOptional({ type: [String], enum: EVENT_TYPES, description: 'empty or omitted = every type' })
  @IsOptional()
  @IsArray({ message: EVENTS_MESSAGE })
  @IsIn(EVENT_TYPES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional({ minLength: 16, maxLength: 256, description: 'generated (32 random bytes, base64url) when omitted' })
  @IsOptional()
  @IsString()
  @Length(16, 256, { message: 'secret must be a string of 16-256 characters' })
  secret?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, default: 'svc', description: 'standard: Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)' })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS, { message: `format must be one of ${WEBHOOK_FORMATS.join(', ')}` })
  format?: WebhookFormat;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: 2000, description: 'checked as on create; the url as answers show it (credentials masked) keeps the stored one' })
  @ValidateIf((o: UpdateWebhookDto) => o.url !== undefined)
  @IsString({ message: 'url must be an http or https URL' })
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: EVENT_TYPES, description: 'replaces the list; [] = every type' })
  @ValidateIf((o: UpdateWebhookDto) => o.events !== undefined)
  @IsArray({ message: EVENTS_MESSAGE })
  @IsIn(EVENT_TYPES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional({ description: 'true mutes the endpoint (sets disabledAt), false re-enables it' })
  @ValidateIf((o: UpdateWebhookDto) => o.disabled !== undefined)
  @IsBoolean({ message: 'disabled must be a boolean' })
  disabled?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, description: 'applies to queued deliveries too' })
  @ValidateIf((o: UpdateWebhookDto) => o.format !== undefined)
  @IsIn(WEBHOOK_FORMATS, { message: `format must be one of ${WEBHOOK_FORMATS.join(', ')}` })
  format?: WebhookFormat;
}

export class WebhookDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'as registered, with any credentials in it masked (https://***:***@host/…)' }) url!: string;
  @ApiProperty({ type: [String], description: 'empty = every type' }) events!: string[];
  @ApiProperty({ enum: WEBHOOK_FORMATS }) format!: WebhookFormat;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'muted while set' }) disabledAt!: string | null;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'until then the secret replaced by the last rotation signs beside the current one; null when none does',
  })
  previousSecretExpiresAt!: string | null;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'the signing secret: returned only in this response (and by rotate-secret)' }) secret!: string;
  @ApiProperty({ example: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', description: 'the same secret for Standard Webhooks libraries: whsec_ and the base64 of its UTF-8 bytes' })
  standardSecret!: string;
}
