import type { LoggerService } from '@nestjs/common';
import { quietBoot } from './logging';

describe('quietBoot', () => {
  const calls: string[] = [];
  const inner: LoggerService = {
    log: (m: unknown, ctx?: unknown) => calls.push(`log ${m} ${ctx}`),
    debug: (m: unknown, ctx?: unknown) => calls.push(`debug ${m} ${ctx}`),
    error: (m: unknown, ctx?: unknown) => calls.push(`error ${m} ${ctx}`),
    warn: (m: unknown, ctx?: unknown) => calls.push(`warn ${m} ${ctx}`),
  };
  beforeEach(() => (calls.length = 0));

  it("sends Nest's module and route lines to debug", () => {
    const logger = quietBoot(inner);
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/v1/groups, POST} route', 'RouterExplorer');
    logger.log('GroupsController {/v1/groups}:', 'RoutesResolver');
    expect(calls).toEqual([
      'debug AppModule dependencies initialized InstanceLoader',
      'debug Mapped {/v1/groups, POST} route RouterExplorer',
      'debug GroupsController {/v1/groups}: RoutesResolver',
    ]);
  });

  it('keeps every other line at its level', () => {
    const logger = quietBoot(inner);
    logger.log('Nest application successfully started', 'NestApplication');
    logger.warn('slow', 'DeliveryWorker');
    logger.error('boom', 'InstanceLoader');
    expect(calls).toEqual(['log Nest application successfully started NestApplication', 'warn slow DeliveryWorker', 'error boom InstanceLoader']);
  });
});
