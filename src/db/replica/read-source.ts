import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { currentReplica } from './read-context';

/**
 * Where a service's lag-tolerant reads go: the replica when the request's route is a @ReplicaRead()
 * one and the replica was fresh enough for it, else the primary. Writes, the permission check and
 * the feed use the DataSource itself, never this.
 */
@Injectable()
export class ReadSource {
  constructor(private readonly primary: DataSource) {}

  get ds(): DataSource {
    return currentReplica() ?? this.primary;
  }

  get manager(): EntityManager {
    return this.ds.manager;
  }
}
