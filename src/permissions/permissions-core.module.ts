import { Global, Module } from '@nestjs/common';
import { PermissionCache } from './permission-cache';
import { PermissionMetrics } from './permission-metrics';
import { PermissionsRepository } from './permissions.repository';

/** The permission cache every mutating module invalidates, and the permission tables. */
@Global()
@Module({ providers: [PermissionCache, PermissionMetrics, PermissionsRepository], exports: [PermissionCache, PermissionsRepository] })
export class PermissionsCoreModule {}
