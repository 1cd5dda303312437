import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Settings } from './settings';

/** Injection token for the parsed, validated {@link Settings}. */
export const SETTINGS = Symbol('SETTINGS');

@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: SettingsModule,
      providers: [{ provide: SETTINGS, useValue: settings }],
      exports: [SETTINGS],
    };
  }
}
