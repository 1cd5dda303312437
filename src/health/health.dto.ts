import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ example: 'guildhall' }) name!: string;
  @ApiProperty({ example: '0.0.0', description: 'a constant; does not identify builds (see release)' }) version!: string;
  @ApiProperty({ example: '1.0.0', description: "this build's release (semver), as CHANGELOG.md lists them" }) release!: string;
}

export class ComponentHealthDto {
  @ApiProperty() ok!: boolean;
  @ApiPropertyOptional() reason?: string;
  @ApiPropertyOptional({ description: 'age of the last completed worker tick' }) ageMs?: number;
}

/**
 * How loaded this instance is (docs/security.md, Bulkheads). Reported, never a reason for 503: an
 * instance taken out of rotation for being busy would only push its load onto the others.
 */
export class LoadDto {
  @ApiProperty({ description: 'true while requests wait for a database connection (every one of the pool is in use)' }) saturated!: boolean;
  @ApiProperty({ description: "connections of this instance's pool in use" }) dbConnectionsInUse!: number;
  @ApiProperty({ description: 'DATABASE_POOL_MAX' }) dbConnectionsMax!: number;
  @ApiProperty({ description: 'requests and tasks waiting for a connection' }) waitingForConnection!: number;
  @ApiProperty({ description: "expensive reads (searches, feed pages, replays, exports) waiting for a slot of their game's" }) expensiveReadsWaiting!: number;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ example: '1.0.0', description: "this build's release (semver)" }) release!: string;
  @ApiProperty({ type: ComponentHealthDto }) db!: ComponentHealthDto;
  @ApiProperty({ type: ComponentHealthDto }) webhookWorker!: ComponentHealthDto;
  @ApiProperty({ type: ComponentHealthDto, description: 'fails once a newer release has migrated the database beyond what this release may run on (writes are then refused)' })
  schema!: ComponentHealthDto;
  @ApiProperty({ type: LoadDto }) load!: LoadDto;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
  @ApiPropertyOptional({ description: 'set while the server drains on SIGINT/SIGTERM' }) reason?: string;
}
