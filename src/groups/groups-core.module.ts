import { Module } from '@nestjs/common';
import { GroupLookup } from './group-lookup';
import { GroupOwnership } from './group-ownership';
import { GroupSearchRepository } from './group-search.repository';
import { GroupSearchService } from './group-search.service';
import { GroupsRepository } from './groups.repository';

/** Group rows, lookups, the owner's rules and the search (GET /v1/groups/search and its admin twin), shared by every module that works inside a group. */
@Module({
  providers: [GroupsRepository, GroupLookup, GroupOwnership, GroupSearchRepository, GroupSearchService],
  exports: [GroupsRepository, GroupLookup, GroupOwnership, GroupSearchService],
})
export class GroupsCoreModule {}
