import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid } from '../common/ids';
import { AdminRepository } from './admin.repository';
import type { AdminStatsDto, UserGamesDto } from './dto/admin.dto';
import { ReadSource } from '../db/replica/read-source';

/** Operator-wide figures (SPEC §4 Admin surface): the stats and the games of an internal user. */
@Injectable()
export class AdminService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly ds: DataSource,
    private readonly repo: AdminRepository,
  ) {}

  stats(): Promise<AdminStatsDto> {
    return this.repo.stats(this.readDb.ds.manager);
  }

  /** Never 404: an id that names no user (or is no uuid at all) simply has no games. */
  async userGames(svcUserId: string): Promise<UserGamesDto> {
    const games = isUuid(svcUserId) ? await this.repo.userGames(this.ds.manager, svcUserId) : [];
    return { svcUserId, games };
  }
}
