import { Module } from '@nestjs/common';
import { GroupLookup } from './group-lookup';
import { GroupOwnership } from './group-ownership';
import { GroupsRepository } from './groups.repository';

/** Group rows, lookups and the owner's rules, shared by every module that works inside a group. */
@Module({ providers: [GroupsRepository, GroupLookup, GroupOwnership], exports: [GroupsRepository, GroupLookup, GroupOwnership] })
export class GroupsCoreModule {}
