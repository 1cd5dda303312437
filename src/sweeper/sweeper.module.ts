import { Module } from '@nestjs/common';
import { SweeperService } from './sweeper.service';

@Module({ providers: [SweeperService], exports: [SweeperService] })
export class SweeperModule {}
