import { Module } from '@nestjs/common';
import { API_KEY_USE_LOG } from '../common/auth/api-key-lookup';
import { ApiKeyUses } from './api-key-uses';
import { GamesModule } from './games.module';

/**
 * Apart from GamesModule, which the operator command loads too: it authenticates no request, so
 * it has no uses to write and no scheduler to write them with.
 */
@Module({
  imports: [GamesModule],
  providers: [ApiKeyUses, { provide: API_KEY_USE_LOG, useExisting: ApiKeyUses }],
  exports: [API_KEY_USE_LOG],
})
export class ApiKeyUsesModule {}
