import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSettings, SettingsError, type Settings } from './settings';

/** The SettingsError thrown by parsing `env`, or a failure when nothing is thrown. */
function settingsErrorOf(env: Record<string, string>): SettingsError {
  try {
    parseSettings(env);
  } catch (err) {
    expect(err).toBeInstanceOf(SettingsError);
    return err as SettingsError;
  }
  throw new Error(`expected parseSettings(${JSON.stringify(env)}) to throw`);
}

describe('parseSettings', () => {
  describe('with an empty environment', () => {
    it('uses the default of every setting', () => {
      const expected: Settings = {
        databaseUrl: undefined,
        databasePoolMax: 10,
        gameReadConcurrency: 5,
        writeBatchMax: 16,
        writeBatchLanes: 2,
        migrateOnBoot: true,
        databaseStatementTimeoutMs: 30_000,
        databaseIdleInTransactionTimeoutMs: 15_000,
        databaseReadUrl: undefined,
        readReplicaMaxLagMs: 1_000,
        readReplicaWaitMs: 250,
        host: '0.0.0.0',
        port: 8787,
        nodeEnv: 'development',
        baseUrl: undefined,
        adminToken: undefined,
        adminTokenPrevious: undefined,
        rateLimitPerMinute: 600,
        rateLimitBurst: 100,
        trustProxy: false,
        webhookAllowPrivateHosts: false,
        webhookWorkerEnabled: true,
        logLevel: 'info',
        maxPageSize: 100,
        eventRetentionDays: 7,
        notificationRetentionDays: 30,
        tracing: undefined,
        metricsPort: undefined,
      };

      expect(parseSettings({})).toEqual(expected);
    });

    it('treats blank values as absent', () => {
      const sut = parseSettings({ PORT: '  ', NODE_ENV: '', TRUST_PROXY: ' ', DATABASE_URL: '', HOST: '  ' });

      expect(sut).toMatchObject({
        port: 8787,
        nodeEnv: 'development',
        trustProxy: false,
        databaseUrl: undefined,
        host: '0.0.0.0',
      });
    });
  });

  it('gives each game half the pool for its expensive reads unless told otherwise', () => {
    expect(parseSettings({ DATABASE_POOL_MAX: '25' }).gameReadConcurrency).toBe(12);
    expect(parseSettings({ DATABASE_POOL_MAX: '1' }).gameReadConcurrency).toBe(1);
    expect(settingsErrorOf({ GAME_READ_CONCURRENCY: '0' }).setting).toBe('GAME_READ_CONCURRENCY');
    expect(settingsErrorOf({ WRITE_BATCH_MAX: '0' }).setting).toBe('WRITE_BATCH_MAX');
    expect(settingsErrorOf({ WRITE_BATCH_MAX: '65' }).setting).toBe('WRITE_BATCH_MAX');
    expect(parseSettings({ DATABASE_POOL_MAX: '1' }).writeBatchLanes).toBe(1);
    expect(settingsErrorOf({ DATABASE_POOL_MAX: '4', WRITE_BATCH_LANES: '5' }).setting).toBe('WRITE_BATCH_LANES');
  });

  describe('with valid values', () => {
    it('parses every setting', () => {
      const sut = parseSettings({
        DATABASE_URL: 'postgres://user:pw@db:5432/guildhall',
        DATABASE_POOL_MAX: '25',
        GAME_READ_CONCURRENCY: '3',
        WRITE_BATCH_MAX: '8',
        WRITE_BATCH_LANES: '4',
        MIGRATE_ON_BOOT: 'false',
        DATABASE_READ_URL: 'postgresql://user:pw@replica:5432/guildhall',
        READ_REPLICA_MAX_LAG_MS: '500',
        READ_REPLICA_WAIT_MS: '100',
        HOST: '127.0.0.1',
        PORT: '3000',
        NODE_ENV: 'production',
        SVC_BASE_URL: 'https://guild.example.com',
        SVC_ADMIN_TOKEN: 'jadm_0123456789abcdef',
        SVC_ADMIN_TOKEN_PREVIOUS: 'jadm_fedcba9876543210',
        RATE_LIMIT_PER_MINUTE: '120',
        RATE_LIMIT_BURST: '20',
        TRUST_PROXY: 'true',
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
        WEBHOOK_WORKER_ENABLED: 'false',
        LOG_LEVEL: 'debug',
        SVC_MAX_PAGE_SIZE: '500',
        EVENT_RETENTION_DAYS: '30',
        NOTIFICATION_RETENTION_DAYS: '90',
        METRICS_PORT: '9464',
      });

      expect(sut).toEqual<Settings>({
        databaseUrl: 'postgres://user:pw@db:5432/guildhall',
        databasePoolMax: 25,
        gameReadConcurrency: 3,
        writeBatchMax: 8,
        writeBatchLanes: 4,
        migrateOnBoot: false,
        databaseStatementTimeoutMs: 30_000,
        databaseIdleInTransactionTimeoutMs: 15_000,
        databaseReadUrl: 'postgresql://user:pw@replica:5432/guildhall',
        readReplicaMaxLagMs: 500,
        readReplicaWaitMs: 100,
        host: '127.0.0.1',
        port: 3000,
        nodeEnv: 'production',
        baseUrl: 'https://guild.example.com',
        adminToken: 'jadm_0123456789abcdef',
        adminTokenPrevious: 'jadm_fedcba9876543210',
        rateLimitPerMinute: 120,
        rateLimitBurst: 20,
        trustProxy: true,
        webhookAllowPrivateHosts: true,
        webhookWorkerEnabled: false,
        logLevel: 'debug',
        maxPageSize: 500,
        eventRetentionDays: 30,
        notificationRetentionDays: 90,
        tracing: undefined,
        metricsPort: 9464,
      });
    });

    it('leaves metrics off unless METRICS_PORT is set', () => {
      expect(parseSettings({ METRICS_PORT: ' ' }).metricsPort).toBeUndefined();
      expect(parseSettings({ METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    });

    it.each(['1', '8787', '65535', ' 3000 '])('accepts PORT %j', (port) => {
      expect(parseSettings({ PORT: port }).port).toBe(Number(port.trim()));
    });

    it.each(['development', 'test', 'production'] as const)('accepts NODE_ENV %s', (nodeEnv) => {
      expect(parseSettings({ NODE_ENV: nodeEnv }).nodeEnv).toBe(nodeEnv);
    });

    it.each(['error', 'warn', 'info', 'debug', 'silent'] as const)('accepts LOG_LEVEL %s', (level) => {
      expect(parseSettings({ LOG_LEVEL: level }).logLevel).toBe(level);
    });

    it.each([
      ['true', true],
      ['1', true],
      ['TRUE', true],
      ['false', false],
      ['0', false],
    ])('reads the flag value %j as %s', (raw, expected) => {
      const sut = parseSettings({ TRUST_PROXY: raw, WEBHOOK_ALLOW_PRIVATE_HOSTS: raw, WEBHOOK_WORKER_ENABLED: raw });

      expect(sut.trustProxy).toBe(expected);
      expect(sut.webhookAllowPrivateHosts).toBe(expected);
      expect(sut.webhookWorkerEnabled).toBe(expected);
    });

    it('accepts 0 for both rate-limit settings', () => {
      const sut = parseSettings({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_BURST: '0' });

      expect(sut.rateLimitPerMinute).toBe(0);
      expect(sut.rateLimitBurst).toBe(0);
    });

    it.each(['postgres://db/guildhall', 'postgresql://db/guildhall'])('accepts DATABASE_URL %s', (url) => {
      expect(parseSettings({ DATABASE_URL: url }).databaseUrl).toBe(url);
    });

    it('accepts an http SVC_BASE_URL and drops its trailing slashes', () => {
      expect(parseSettings({ SVC_BASE_URL: 'http://localhost:8787//' }).baseUrl).toBe('http://localhost:8787');
    });

    it('accepts an admin token of "jadm_" and 16 printable characters', () => {
      const token = 'jadm_!#$%&()*+,-./:;<';

      expect(parseSettings({ SVC_ADMIN_TOKEN: token }).adminToken).toBe(token);
    });

    it('treats a blank admin token as unset, like every other blank setting', () => {
      expect(parseSettings({ SVC_ADMIN_TOKEN: '   ' }).adminToken).toBeUndefined();
    });

    it('keeps the previous root token beside the current one, for a rotation', () => {
      const settings = parseSettings({ SVC_ADMIN_TOKEN: 'jadm_new0123456789abcdef', SVC_ADMIN_TOKEN_PREVIOUS: 'jadm_old0123456789abcdef' });

      expect([settings.adminToken, settings.adminTokenPrevious]).toEqual(['jadm_new0123456789abcdef', 'jadm_old0123456789abcdef']);
      expect(parseSettings({ SVC_ADMIN_TOKEN: 'jadm_new0123456789abcdef' }).adminTokenPrevious).toBeUndefined();
    });
  });

  describe('with an invalid value', () => {
    it.each<[string, string]>([
      ['PORT', 'abc'],
      ['PORT', '0'],
      ['PORT', '65536'],
      ['PORT', '1.5'],
      ['PORT', '-1'],
      ['NODE_ENV', 'staging'],
      ['LOG_LEVEL', 'verbose'],
      ['TRUST_PROXY', 'yes'],
      ['WEBHOOK_ALLOW_PRIVATE_HOSTS', 'maybe'],
      ['WEBHOOK_WORKER_ENABLED', 'on'],
      ['SVC_MAX_PAGE_SIZE', '0'],
      ['SVC_MAX_PAGE_SIZE', '-1'],
      ['DATABASE_POOL_MAX', '0'],
      ['EVENT_RETENTION_DAYS', '0'],
      ['EVENT_RETENTION_DAYS', '366'],
      ['EVENT_RETENTION_DAYS', '7d'],
      ['NOTIFICATION_RETENTION_DAYS', '0'],
      ['NOTIFICATION_RETENTION_DAYS', '366'],
      ['NOTIFICATION_RETENTION_DAYS', '30d'],
      ['RATE_LIMIT_PER_MINUTE', '-1'],
      ['RATE_LIMIT_BURST', 'lots'],
      ['DATABASE_URL', 'mysql://x'],
      ['DATABASE_URL', 'not a url'],
      ['DATABASE_READ_URL', 'mysql://replica'],
      ['DATABASE_READ_URL', 'replica:5432'],
      ['READ_REPLICA_MAX_LAG_MS', '-1'],
      ['READ_REPLICA_MAX_LAG_MS', '3600001'],
      ['READ_REPLICA_WAIT_MS', '10001'],
      ['READ_REPLICA_WAIT_MS', '1s'],
      ['SVC_BASE_URL', 'ftp://x'],
      ['SVC_BASE_URL', 'nope'],
      ['SVC_ADMIN_TOKEN', 'adm_0123456789abcdef'],
      ['SVC_ADMIN_TOKEN', 'jadm_short'],
      ['SVC_ADMIN_TOKEN', 'jadm_0123456789abcde'],
      ['SVC_ADMIN_TOKEN', 'jadm_0123456789 abcdef'],
      ['SVC_ADMIN_TOKEN_PREVIOUS', 'jadm_short'],
      ['METRICS_PORT', '0'],
      ['METRICS_PORT', '65536'],
      ['METRICS_PORT', 'metrics'],
      ['METRICS_PORT', '8787'],
    ])('refuses %s=%j with a one-line SettingsError naming it', (name, value) => {
      const err = settingsErrorOf({ [name]: value });

      expect(err.setting).toBe(name);
      expect(err.message.startsWith(`Invalid setting ${name}:`)).toBe(true);
      expect(err.message).not.toContain('\n');
    });

    it.each([
      [{ SVC_ADMIN_TOKEN_PREVIOUS: 'jadm_old0123456789abcdef' }, /without SVC_ADMIN_TOKEN/],
      [{ SVC_ADMIN_TOKEN: 'jadm_same0123456789abcdef', SVC_ADMIN_TOKEN_PREVIOUS: 'jadm_same0123456789abcdef' }, /equals SVC_ADMIN_TOKEN/],
    ])('refuses a previous root token that cannot be part of a rotation: %j', (env, message) => {
      const err = settingsErrorOf(env);

      expect(err.setting).toBe('SVC_ADMIN_TOKEN_PREVIOUS');
      expect(err.message).toMatch(message);
    });

    it('refuses a METRICS_PORT equal to PORT, whatever PORT is', () => {
      const err = settingsErrorOf({ PORT: '3000', METRICS_PORT: '3000' });

      expect(err.message).toBe('Invalid setting METRICS_PORT: must differ from PORT (both are 3000)');
    });

    it('keeps the message on one line when the offending value spans several', () => {
      const err = settingsErrorOf({ PORT: '80\n81' });

      expect(err.message).not.toContain('\n');
    });
  });

  describe('traces (the OpenTelemetry variables)', () => {
    const ON = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

    it('are off without an OTLP endpoint, whatever else is set', () => {
      const sut = parseSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'not-a-sampler', OTEL_TRACES_SAMPLER_ARG: 'lots' });

      expect(sut.tracing).toBeUndefined();
    });

    it('are on with OTEL_EXPORTER_OTLP_ENDPOINT, sending to its /v1/traces, every span sampled unless the caller says otherwise', () => {
      expect(parseSettings(ON).tracing).toEqual({
        tracesUrl: 'http://collector:4318/v1/traces',
        serviceName: 'guildhall',
        resourceAttributes: {},
        sampler: 'parentbased_always_on',
        samplerRatio: 1,
      });
    });

    it.each([
      ['http://collector:4318/', 'http://collector:4318/v1/traces'],
      ['https://otlp.example.com/otlp', 'https://otlp.example.com/otlp/v1/traces'],
    ])('appends /v1/traces to the endpoint %s', (endpoint, url) => {
      expect(parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).tracing?.tracesUrl).toBe(url);
    });

    it('takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, before the other', () => {
      const sut = parseSettings({ ...ON, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9000/custom' });

      expect(sut.tracing?.tracesUrl).toBe('http://traces:9000/custom');
    });

    it('are off with OTEL_SDK_DISABLED=true', () => {
      expect(parseSettings({ ...ON, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    });

    it('read the service name, resource attributes and sampler', () => {
      const sut = parseSettings({
        ...ON,
        OTEL_SERVICE_NAME: 'guildhall-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod, service.version=1.2.3,team=a%2Cb',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });

      expect(sut.tracing).toMatchObject({
        serviceName: 'guildhall-eu',
        resourceAttributes: { 'deployment.environment.name': 'prod', 'service.version': '1.2.3', team: 'a,b' },
        sampler: 'parentbased_traceidratio',
        samplerRatio: 0.1,
      });
    });

    it('ignore the sampler argument of a sampler that takes none', () => {
      expect(parseSettings({ ...ON, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }).tracing?.samplerRatio).toBe(1);
    });

    it.each<[string, string]>([
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'grpc://collector:4317'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'nope'],
      ['OTEL_TRACES_SAMPLER', 'jaeger_remote'],
      ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
      ['OTEL_TRACES_SAMPLER_ARG', '-0.1'],
      ['OTEL_TRACES_SAMPLER_ARG', 'half'],
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'],
      ['OTEL_RESOURCE_ATTRIBUTES', 'no-equals-sign'],
      ['OTEL_SDK_DISABLED', 'sometimes'],
    ])('refuse %s=%j with a one-line SettingsError naming it', (name, value) => {
      const env: Record<string, string> = { ...ON, OTEL_TRACES_SAMPLER: 'traceidratio', [name]: value };
      const err = settingsErrorOf(env);

      expect(err.setting).toBe(name);
      expect(err.message).not.toContain('\n');
    });
  });
});

describe('the documented settings', () => {
  /** Every variable parseSettings reads, found by handing it an environment that records each lookup. */
  const read = (() => {
    const names = new Set<string>();
    // With traces on too: their other variables are read only then.
    const traced: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'traceidratio' };
    parseSettings(new Proxy({}, { get: (_, name) => (typeof name === 'string' && names.add(name), undefined) }));
    parseSettings(new Proxy({}, { get: (_, name) => (typeof name === 'string' && names.add(name), typeof name === 'string' ? traced[name] : undefined) }));
    return [...names].sort();
  })();
  const root = join(__dirname, '../..');
  const table = [...readFileSync(join(root, 'docs/operations.md'), 'utf8').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);

  it('reads the settings it is expected to', () => {
    expect(read).toContain('METRICS_PORT');
    expect(read).toContain('DATABASE_URL');
  });

  it.each(read)('docs/operations.md has a row for %s', (name) => {
    expect(table).toContain(name);
  });

  it.each(read)('.env.example names %s', (name) => {
    expect(readFileSync(join(root, '.env.example'), 'utf8')).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });

  it('documents no setting the server does not read, but the launcher\'s data folder', () => {
    expect(table.filter((name) => !read.includes(name))).toEqual(['SVC_DATA_DIR']);
  });
});
