import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto } from '../../common/pagination/page';
import { PAGE_PARAMS, queryParser, stringParam } from '../../common/validation/query-parser';
import { ValidatedBy } from '../../common/validation/validation.pipe';

export class EffectivePermissionDto {
  @ApiProperty() permission!: string;
  @ApiProperty({ enum: ['role', 'override'], description: 'what grants it, as the check would say' }) source!: 'role' | 'override';
  @ApiProperty({ type: String, nullable: true, description: 'the highest-priority granting role when source is role; null for an override' })
  viaRoleId!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when the deciding grant ends; null: permanent' })
  expiresAt!: string | null;
}

export class EffectivePermissionsDto {
  @ApiProperty({ description: 'the external user id' }) userId!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ type: [EffectivePermissionDto], description: 'every key allowed now, ascending; empty when the user is not an active member' })
  permissions!: EffectivePermissionDto[];
}

/** The groups-allowing list's query, checked by hand (queryParser): the list is a hot read. */
const parseGroupsAllowingQuery = queryParser<GroupsAllowingQueryDto>([
  stringParam('permission', { optional: false, min: 1, max: 128, message: 'permission must be 1-128 characters' }),
  stringParam('kind', { optional: true, min: 1, max: 64, message: 'kind must be 1-64 characters' }),
  ...PAGE_PARAMS,
]);

@ValidatedBy(parseGroupsAllowingQuery)
export class GroupsAllowingQueryDto extends PageQueryDto {
  @ApiProperty({ minLength: 1, maxLength: 128, description: 'the key the user must be allowed' })
  permission!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 64, description: 'only groups of this kind' })
  kind?: string;
}
