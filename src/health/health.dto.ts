import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ example: 'guildhall' }) name!: string;
  @ApiProperty({ example: '0.0.0', description: 'a constant; does not identify builds' }) version!: string;
}

export class ComponentHealthDto {
  @ApiProperty() ok!: boolean;
  @ApiPropertyOptional() reason?: string;
  @ApiPropertyOptional({ description: 'age of the last completed worker tick' }) ageMs?: number;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ type: ComponentHealthDto }) db!: ComponentHealthDto;
  @ApiProperty({ type: ComponentHealthDto }) webhookWorker!: ComponentHealthDto;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
  @ApiPropertyOptional({ description: 'set while the server drains on SIGINT/SIGTERM' }) reason?: string;
}
