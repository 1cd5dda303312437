import type { OpenAPIObject } from '@nestjs/swagger';
import { CONSISTENCY_HEADER } from '../db/replica/consistency-token';
import { REPLICA_READ_EXTENSION } from '../db/replica/replica-read.decorator';
import { errorResponse } from './error-answers';

type Operation = Record<string, unknown> & {
  parameters?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown>; description?: string }>;
};

const WRITES = new Set(['post', 'put', 'patch', 'delete']);
const EXAMPLE = 'q3Xw0Zq9bT1nJ0m3c8Vd5A';

/**
 * The consistency token in the API document (docs/read-replicas.md): a response header of every
 * write's 2xx answers, and an optional request header of the reads the replica may serve (marked
 * `x-svc-replica-read`), whose malformed value answers 400.
 */
export function addConsistencyHeaders(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.headers = {
    ...components.headers,
    Consistency: {
      description:
        'The consistency token of this write: the database position just past its commit, sealed so it tells nothing. ' +
        'Send it back as the `x-svc-consistency` request header of later reads, and a read replica serves them only once it has this write. ' +
        'Opaque: keep the last one received (or, with writes in flight together, each of theirs).',
      schema: { type: 'string', example: EXAMPLE },
    },
  };
  // Spelt out in each operation rather than referenced, so that every reader of the document sees it.
  const parameter = {
    name: CONSISTENCY_HEADER,
    in: 'header',
    required: false,
    description:
      'The last `x-svc-consistency` a write answered, or up to 16 of them separated by commas: the read sees those writes ' +
      '(and everything before them). Without it the read may be up to READ_REPLICA_MAX_LAG_MS behind when the service reads ' +
      'from a replica. A value that is no token answers 400.',
    schema: { type: 'string', example: EXAMPLE },
  };
  for (const item of Object.values(document.paths)) {
    for (const [method, op] of Object.entries(item) as [string, Operation][]) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      if (WRITES.has(method)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          if (status.startsWith('2')) response.headers = { ...response.headers, [CONSISTENCY_HEADER]: { $ref: '#/components/headers/Consistency' } };
        }
      } else if (op[REPLICA_READ_EXTENSION] === true) {
        op.parameters = [...(op.parameters ?? []), parameter];
        (op.responses ??= {})['400'] ??= errorResponse(['bad_request']);
      }
    }
  }
  return document;
}
