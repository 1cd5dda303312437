import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from './common/auth/route-auth.decorator';
import { SERVICE_VERSION } from './health/health.controller';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Guildhall')
    .setDescription(
      'Groups, membership and the social graph for game backends. Game routes take an API key ' +
        '(`Authorization: Bearer jk_<prefix>.<secret>`); `/v1/admin/*` takes the admin token. Every ' +
        'non-2xx response is the envelope `{ code, status, message, requestId? }`.',
    )
    .setVersion(SERVICE_VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'jk_<prefix>.<secret>' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'jadm_… (SVC_ADMIN_TOKEN)' }, 'adminToken')
    .addServer('/', 'this server')
    .build();
  return markPublicOperations(SwaggerModule.createDocument(app, config));
}

/**
 * Operations of @PublicRoute() handlers take no credential: `security: []`, overriding their
 * controller's scheme (Nest drops an empty list from a method's own metadata).
 */
function markPublicOperations(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item) as Record<string, unknown>[]) {
      if (typeof op !== 'object' || op === null || !(PUBLIC_OPERATION_EXTENSION in op)) continue;
      delete op[PUBLIC_OPERATION_EXTENSION];
      op.security = [];
    }
  }
  return document;
}

/** `GET /openapi.json` and Swagger UI at `GET /docs`: public, outside `/v1`, no database access. */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}
