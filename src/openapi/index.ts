import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from '../common/auth/route-auth.decorator';
import { EventBodyDto } from '../events/dto/feed.dto';
import { RELEASE } from '../version';
import { addConsistencyHeaders } from './consistency';
import { completeErrorAnswers } from './error-answers';
import { exampleOf, type Components, type Schema } from './examples';

type Operation = Record<string, unknown> & {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
};
type MediaType = { schema?: Schema; example?: unknown };

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Guildhall')
    .setDescription(
      'Groups, membership and the social graph for game backends. Game routes take an API key ' +
        '(`Authorization: Bearer jk_<prefix>.<secret>`); `/v1/admin/*` takes the admin token or an operator token ' +
        '(each admin operation states the least operator role it needs in `x-svc-operator-role`). Every ' +
        'non-2xx response is the envelope `{ code, status, message, requestId? }`.',
    )
    .setVersion(RELEASE)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'jk_<prefix>.<secret>' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: "jadm_… (SVC_ADMIN_TOKEN, the root) or an operator's jop_<prefix>.<secret>, within its role" }, 'adminToken')
    .addServer('/', 'this server')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Each event body carries its type's own fields beside the common ones (DECISIONS §9).
  const eventBody = document.components?.schemas?.[EventBodyDto.name];
  if (eventBody && !('$ref' in eventBody)) eventBody.additionalProperties = true;
  return addExamplesAndErrors(addConsistencyHeaders(markPublicOperations(document)));
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

/** Each operation's error answers completed (error-answers.ts), and an example request and answer. */
function addExamplesAndErrors(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components?.schemas ?? {}) as Components;
  for (const item of Object.values(document.paths)) {
    for (const [method, op] of Object.entries(item) as Array<[string, Operation]>) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      completeErrorAnswers(op, method);
      const body = op.requestBody?.content?.['application/json'];
      if (body?.schema && body.example === undefined) body.example = exampleOf(body.schema, components, 'request');
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const answer = response.content?.['application/json'];
        if (Number(status) < 400 && answer?.schema && answer.example === undefined) answer.example = exampleOf(answer.schema, components, 'answer');
      }
    }
  }
  return document;
}

/** `GET /openapi.json` and Swagger UI at `GET /docs`: public, outside `/v1`, no database access. */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}
