import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { OPERATOR_ROLES, type OperatorRole } from '../../common/auth/operator-roles';
import { OPERATOR_AUDIT_ACTIONS } from '../operator-actions';

const ROLE_MESSAGE = `role must be one of ${OPERATOR_ROLES.join(', ')}`;

export class CreateOperatorDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Ana (support)' })
  @IsString({ message: 'name must be a string of 1-100 characters' })
  @Length(1, 100, { message: 'name must be a string of 1-100 characters' })
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({ enum: OPERATOR_ROLES })
  @IsIn(OPERATOR_ROLES, { message: ROLE_MESSAGE })
  role!: OperatorRole;
}

export class UpdateOperatorDto {
  @ApiProperty({ enum: OPERATOR_ROLES })
  @IsIn(OPERATOR_ROLES, { message: ROLE_MESSAGE })
  role!: OperatorRole;
}

export class OperatorDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: OPERATOR_ROLES }) role!: OperatorRole;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'the last request made with the token, to the minute' })
  lastUsedAt!: string | null;
}

export class CreatedOperatorDto extends OperatorDto {
  @ApiProperty({ example: 'jop_3f9c2a71d04b8e65.Xq…', description: 'the operator\'s token, jop_<prefix>.<secret>: shown only in this answer, stored hashed' })
  token!: string;
}

export class OperatorListDto {
  @ApiProperty({ type: [OperatorDto] }) items!: OperatorDto[];
}

/** Who the credential of a request is: the console reads it to show what the role may do. */
export class OperatorWhoamiDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null for the root token' }) id!: string | null;
  @ApiProperty({ example: 'root' }) name!: string;
  @ApiProperty({ enum: OPERATOR_ROLES, description: 'the root token is owner' }) role!: OperatorRole;
}

export class OperatorAuditEntryDto {
  @ApiProperty({ description: 'increasing; pass the last one seen as before for the next page' }) id!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null when the root token or the operator command did it' }) operatorId!: string | null;
  @ApiProperty({ description: 'the operator\'s name when it acted, root (the root token) or cli (the operator command)' }) operatorName!: string;
  @ApiProperty({ enum: OPERATOR_AUDIT_ACTIONS }) action!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) gameId!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'what was acted on: a key, group, user, operator or join request id' }) targetId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'what the action changed; from the operator command also osUser and host, where it ran' })
  details!: Record<string, unknown>;
}

export class OperatorAuditPageDto {
  @ApiProperty({ type: [OperatorAuditEntryDto] }) items!: OperatorAuditEntryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'the id of the last item when more remain; pass it as before' })
  nextCursor!: string | null;
}

export class OperatorAuditQueryDto {
  @ApiPropertyOptional({ description: 'an operator id, root for what the root token did, or cli for what the operator command did' })
  @IsOptional()
  @IsString({ message: 'operatorId must be an operator id, root or cli' })
  operatorId?: string;

  @ApiPropertyOptional({ enum: OPERATOR_AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(OPERATOR_AUDIT_ACTIONS, { message: 'action must be one of the operator audit actions' })
  action?: string;

  @ApiPropertyOptional({ description: 'a previous nextCursor: entries older than it' })
  @IsOptional()
  @IsString({ message: 'before must be a single entry id' })
  @Matches(/^[1-9]\d{0,17}$/, { message: 'before must be an entry id' })
  before?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsString()
  limit?: string;
}
