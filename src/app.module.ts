import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import { MetricsModule } from './observability/metrics/metrics.module';
import { AuthGuard } from './common/auth/auth.guard';
import { RequestAuthenticator } from './common/auth/request-authenticator';
import { BulkheadModule } from './common/bulkhead/game-reads';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { RateLimiter } from './common/rate-limit/rate-limiter';
import { RateLimitMetrics } from './common/rate-limit/rate-limit-metrics';
import type { Settings } from './config/settings';
import { SettingsModule } from './config/settings.module';
import { DatabaseModule } from './db/database.module';
import { TracingModule } from './observability/tracing/tracing.module';
import { EventsModule } from './events/events.module';
import { AdminModule } from './admin/admin.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AuditModule } from './audit/audit.module';
import { BansModule } from './bans/bans.module';
import { ReportsModule } from './reports/reports.module';
import { FriendsModule } from './friends/friends.module';
import { GameConfigModule } from './game-config/game-config.module';
import { IdentityLinksModule } from './identity/identity-links.module';
import { ApiKeyUsesModule } from './games/api-key-uses.module';
import { GamesModule } from './games/games.module';
import { GroupsModule } from './groups/groups.module';
import { InvitationsModule } from './invitations/invitations.module';
import { JoinRequestsModule } from './join-requests/join-requests.module';
import { MembersModule } from './members/members.module';
import { PermissionsCoreModule } from './permissions/permissions-core.module';
import { PermissionsModule } from './permissions/permissions.module';
import { RolesModule } from './roles/roles.module';
import { HealthModule } from './health/health.module';
import { IdentityModule } from './identity/identity.module';
import { loggerParams } from './logging';
import { SweeperModule } from './sweeper/sweeper.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { UsersModule } from './users/users.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ErasuresModule } from './erasures/erasures.module';
import { OperatorsModule } from './operators/operators.module';

@Module({})
export class AppModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SettingsModule.forRoot(settings),
        DiscoveryModule,
        LoggerModule.forRoot(loggerParams(settings)),
        MetricsModule,
        ScheduleModule.forRoot(),
        TracingModule.forRoot(settings),
        EventsModule,
        DatabaseModule,
        BulkheadModule,
        IdentityModule,
        GamesModule,
        ApiKeyUsesModule,
        OperatorsModule,
        GroupsModule,
        MembersModule,
        InvitationsModule,
        JoinRequestsModule,
        AuditModule,
        PermissionsCoreModule,
        RolesModule,
        PermissionsModule,
        BansModule,
        ReportsModule,
        GameConfigModule,
        IdentityLinksModule,
        FriendsModule,
        UsersModule,
        NotificationsModule,
        ErasuresModule,
        AdminModule,
        AnalyticsModule,
        WebhooksModule,
        SweeperModule,
        HealthModule,
      ],
      providers: [
        RateLimiter,
        RateLimitMetrics,
        RequestAuthenticator,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
