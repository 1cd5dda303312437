import { Module } from '@nestjs/common';
import { GroupLookup } from './group-lookup';
import { GroupsRepository } from './groups.repository';

/** Group rows and lookups, shared by every module that works inside a group. */
@Module({ providers: [GroupsRepository, GroupLookup], exports: [GroupsRepository, GroupLookup] })
export class GroupsCoreModule {}
