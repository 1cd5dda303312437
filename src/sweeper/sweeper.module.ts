import { Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { SweeperService } from './sweeper.service';

@Module({ imports: [GroupsCoreModule], providers: [SweeperService], exports: [SweeperService] })
export class SweeperModule {}
