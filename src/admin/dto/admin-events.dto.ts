import { PickType } from '@nestjs/swagger';
import { GroupStreamQueryDto } from '../../events/dto/feed.dto';

/** The group stream's query without `viewer`: the operator sees every group, secret ones included. */
export class AdminGroupStreamQueryDto extends PickType(GroupStreamQueryDto, ['after'] as const) {}
