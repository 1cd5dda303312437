import { Global, Module } from '@nestjs/common';
import { PermissionCache } from './permission-cache';
import { PermissionsRepository } from './permissions.repository';

/** The permission cache every mutating module invalidates, and the permission tables. */
@Global()
@Module({ providers: [PermissionCache, PermissionsRepository], exports: [PermissionCache, PermissionsRepository] })
export class PermissionsCoreModule {}
