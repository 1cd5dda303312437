import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** An optional ISO 8601 window, `from` inclusive and `to` exclusive; parsed by the service. */
export class AnalyticsWindowQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'inclusive' })
  @IsOptional()
  @IsString({ message: 'from must be a single ISO 8601 timestamp' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'exclusive' })
  @IsOptional()
  @IsString({ message: 'to must be a single ISO 8601 timestamp' })
  to?: string;
}

export class GroupGrowthQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'default: to minus 30 days' })
  @IsOptional()
  @IsString({ message: 'from must be a single ISO 8601 timestamp' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'default: now; the groups are ranked here' })
  @IsOptional()
  @IsString({ message: 'to must be a single ISO 8601 timestamp' })
  to?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10, default: 5 })
  @IsOptional()
  @IsString({ message: 'topN must be an integer from 1 to 10' })
  topN?: string;
}

export class ChurnBinDto {
  @ApiProperty({ example: '1h - 1d' }) label!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'inclusive; null for the first bin' }) minMs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'exclusive; null for the last bin' }) maxMs!: number | null;
  @ApiProperty() count!: number;
}

export class GroupChurnDto {
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) from!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) to!: string | null;
  @ApiProperty({ description: 'live groups created inside the window' }) totalGroupsInWindow!: number;
  @ApiProperty({ description: 'members of those groups who left or were kicked' }) totalDeparturesInWindow!: number;
  @ApiProperty({ type: [ChurnBinDto], description: 'exactly five tenure bins; a boundary value falls in the higher bin' })
  bins!: ChurnBinDto[];
}

export class GrowthSeriesDto {
  @ApiProperty({ example: 'group:0190a5c8-…', description: 'group:<id>, or all-others' }) key!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for all-others' }) groupId!: string | null;
  @ApiProperty({ type: [Number], description: 'active members at each boundary of buckets' }) data!: number[];
}

export class GroupGrowthDto {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ description: 'hour, 6 hours, day, 3 days or week, by window length' }) bucketSizeMs!: number;
  @ApiProperty({ type: [String], description: 'the end of each bucket (the last one is to); data are read at these instants' })
  buckets!: string[];
  @ApiProperty({ type: [GrowthSeriesDto], description: 'top groups by active members at to, then all-others' })
  series!: GrowthSeriesDto[];
}

export class MemberActivityDto {
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) from!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) to!: string | null;
  @ApiProperty() totalEvents!: number;
  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { type: 'integer' } },
    description: '[day][hour] in UTC, 7 × 24, day 0 = Sunday',
  })
  cells!: number[][];
}

export class RoleCountDto {
  @ApiProperty() name!: string;
  @ApiProperty() count!: number;
}

export class RoleDistributionDto {
  @ApiProperty({ description: 'role assignments of active members' }) totalAssignments!: number;
  @ApiProperty() uniqueRoleNames!: number;
  @ApiProperty({ type: [RoleCountDto], description: 'up to 10, count descending then name ascending' }) topRoles!: RoleCountDto[];
  @ApiProperty({ description: 'assignments of the names beyond the top 10' }) otherCount!: number;
}

export class PermissionUsageItemDto {
  @ApiProperty() permission!: string;
  @ApiProperty({ description: 'roles granting the key' }) roleGrants!: number;
  @ApiProperty({ description: 'member overrides of the key, allowed or denied, any member status' }) memberOverrides!: number;
  @ApiProperty() total!: number;
}

export class PermissionUsageDto {
  @ApiProperty({ description: 'role grants plus member overrides of every key' }) totalCount!: number;
  @ApiProperty() uniqueKeys!: number;
  @ApiProperty({ type: [PermissionUsageItemDto], description: 'up to 15, total descending then permission ascending' })
  items!: PermissionUsageItemDto[];
  @ApiProperty({ description: 'the totals of the keys beyond the top 15' }) otherCount!: number;
}
