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

  it("sends Nest's module, route, starting and started lines to debug", () => {
    const logger = quietBoot(inner);
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/v1/groups, POST} route', 'RouterExplorer');
    logger.log('GroupsController {/v1/groups}:', 'RoutesResolver');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(calls).toEqual([
      'debug Starting Nest application... NestFactory',
      'debug AppModule dependencies initialized InstanceLoader',
      'debug Mapped {/v1/groups, POST} route RouterExplorer',
      'debug GroupsController {/v1/groups}: RoutesResolver',
      'debug Nest application successfully started NestApplication',
    ]);
  });

  it('keeps every other line at its level', () => {
    const logger = quietBoot(inner);
    logger.log('Guildhall 1.0.0 is listening on 127.0.0.1:8787', 'Guildhall');
    logger.warn('slow', 'DeliveryWorker');
    logger.error('boom', 'InstanceLoader');
    expect(calls).toEqual(['log Guildhall 1.0.0 is listening on 127.0.0.1:8787 Guildhall', 'warn slow DeliveryWorker', 'error boom InstanceLoader']);
  });
});
