import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Settings } from '../../config/settings';
import type { Tracing } from './tracing';

/** Injection token of the app's {@link Tracing}, or null when traces are off. */
export const TRACING = Symbol('TRACING');

/**
 * Traces, when an OTLP endpoint is set. Off, the OpenTelemetry packages are not even loaded: the
 * token holds null and every instrumented place skips its tracing code on that one check.
 */
@Global()
@Module({})
export class TracingModule implements OnApplicationShutdown {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: TracingModule,
      providers: [
        {
          provide: TRACING,
          useFactory: (): Tracing | null => {
            if (!settings.tracing) return null;
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            const { startTracing } = require('./start-tracing') as typeof import('./start-tracing');
            return startTracing(settings.tracing);
          },
        },
      ],
      exports: [TRACING],
    };
  }

  constructor(@Inject(TRACING) private readonly tracing: Tracing | null) {}

  /** After the worker's drain (beforeApplicationShutdown): the spans of its last attempts go too. */
  async onApplicationShutdown(): Promise<void> {
    await this.tracing?.shutdown();
  }
}
