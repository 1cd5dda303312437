import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ReplicaReadInterceptor } from './replica-read.interceptor';

export const REPLICA_READ = 'svc:replica-read';
/** Marks an operation of the API document as served by the read replica when one is fresh enough. */
export const REPLICA_READ_EXTENSION = 'x-svc-replica-read';

/**
 * The one place a route is allowed the read replica (docs/read-replicas.md): a GET whose answer may
 * be up to READ_REPLICA_MAX_LAG_MS old, or as fresh as the consistency token it is sent with. Its
 * service reads through ReadSource; the permission check, the feed, the streams and every unit of
 * work read the primary whatever the route. The API document marks these operations.
 */
export const ReplicaRead = () =>
  applyDecorators(SetMetadata(REPLICA_READ, true), ApiExtension(REPLICA_READ_EXTENSION, true), UseInterceptors(ReplicaReadInterceptor));
