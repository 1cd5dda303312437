import { Module } from '@nestjs/common';
import { AdminIdentityLinksController } from './admin-identity-links.controller';
import { IdentityLinksRepository } from './identity-links.repository';
import { IdentityLinksService } from './identity-links.service';

/** The admin link route of DECISIONS §6. */
@Module({ controllers: [AdminIdentityLinksController], providers: [IdentityLinksRepository, IdentityLinksService] })
export class IdentityLinksModule {}
