import { Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({
  imports: [GroupsCoreModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService],
  exports: [AuditRepository],
})
export class AuditModule {}
