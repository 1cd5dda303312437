import { Module } from '@nestjs/common';
import { GroupLookup } from './group-lookup';
import { GroupSearchRepository } from './group-search.repository';
import { GroupSearchService } from './group-search.service';
import { GroupsRepository } from './groups.repository';

/** Group rows, lookups and the search (GET /v1/groups/search and its admin twin), shared by every module that works inside a group. */
@Module({
  providers: [GroupsRepository, GroupLookup, GroupSearchRepository, GroupSearchService],
  exports: [GroupsRepository, GroupLookup, GroupSearchService],
})
export class GroupsCoreModule {}
