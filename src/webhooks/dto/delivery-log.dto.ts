import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export class DeliveryLogQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'only the deliveries in this status; omitted = all' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'the delivery id (the x-svc-delivery-id header of svc deliveries)' }) id!: string;
  @ApiProperty({ description: 'the event id, the same on every attempt and for every endpoint' }) eventId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null only once the event itself is past retention' }) eventType!: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty({ type: 'integer', description: 'attempts made (or in flight) so far, at most 6' }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when the next attempt is due; null once delivered or failed' })
  nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) lastAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) deliveredAt!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the HTTP status of the last answer; null when none came' }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'HTTP 503' }) lastError!: string | null;
}

export class WebhookAttemptDto {
  @ApiProperty({ type: 'integer', description: '1 to 6' }) number!: number;
  @ApiProperty({ format: 'date-time', description: 'when the attempt was taken up' }) at!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the HTTP status answered; null on a network error or timeout' }) statusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'no response within 10000 ms' }) error!: string | null;
  @ApiProperty({ type: 'integer' }) durationMs!: number;
}

export class WebhookDeliveryDetailDto extends WebhookDeliveryDto {
  @ApiProperty({ type: [WebhookAttemptDto], description: 'every recorded attempt, oldest first' }) attemptLog!: WebhookAttemptDto[];
}
