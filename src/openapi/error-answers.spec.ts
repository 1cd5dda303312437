import { errorResponseSchema } from '../common/errors/api-error-responses.decorator';
import { completeErrorAnswers, type Operation, type Response } from './error-answers';

const error = (...codes: string[]): Response => ({ description: 'x', content: { 'application/json': { schema: errorResponseSchema(codes) } } });
const codes = (op: Operation, status: string) =>
  (op.responses?.[status] as unknown as { content: { 'application/json': { schema: { allOf: Array<{ properties?: { code?: { enum: string[] } } }> } } } })
    .content['application/json'].schema.allOf[1].properties?.code?.enum;

describe('completeErrorAnswers', () => {
  const bothCredentials = () => ({ 401: error('invalid_api_key', 'invalid_admin_token'), 404: error('not_found') });

  it("keeps the 401 code of the route's credential", () => {
    const game: Operation = { security: [{ apiKey: [] }], responses: bothCredentials() };
    const admin: Operation = { security: [{ adminToken: [] }], responses: bothCredentials() };
    completeErrorAnswers(game);
    completeErrorAnswers(admin);
    expect(codes(game, '401')).toEqual(['invalid_api_key']);
    expect(codes(admin, '401')).toEqual(['invalid_admin_token']);
  });

  it("documents a stream's error answers as the JSON envelope, whatever its 200 produces", () => {
    const stream: Operation = {
      security: [{ apiKey: [] }],
      responses: { 200: { content: { 'text/event-stream': {} } }, 401: { content: { 'text/event-stream': { schema: errorResponseSchema(['invalid_api_key', 'invalid_admin_token']) } } } },
    };
    completeErrorAnswers(stream);
    expect(Object.keys(stream.responses?.['401'].content ?? {})).toEqual(['application/json']);
    expect(stream.responses?.['401'].content?.['application/json'].example).toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('adds 403 permission_denied to an admin operation above the viewer role, and not to a viewer one', () => {
    const moderate: Operation = { security: [{ adminToken: [] }], 'x-svc-operator-role': 'moderator', responses: bothCredentials() };
    const read: Operation = { security: [{ adminToken: [] }], 'x-svc-operator-role': 'viewer', responses: bothCredentials() };
    completeErrorAnswers(moderate);
    completeErrorAnswers(read);
    expect(codes(moderate, '403')).toEqual(['permission_denied']);
    expect(read.responses).not.toHaveProperty('403');
  });

  it('drops 401 from a public route', () => {
    const op: Operation = { security: [], responses: bothCredentials() };
    completeErrorAnswers(op);
    expect(op.responses).not.toHaveProperty('401');
  });

  it('adds 403 permission_denied (a read-only key) to a game route of every method but GET, HEAD and OPTIONS', () => {
    const ops = Object.fromEntries(
      ['get', 'head', 'options', 'post', 'put', 'patch', 'delete'].map((method) => {
        const op: Operation = { security: [{ apiKey: [] }], responses: {} };
        completeErrorAnswers(op, method);
        return [method, op.responses?.['403'] ? codes(op, '403') : undefined];
      }),
    );
    expect(ops).toEqual({
      get: undefined,
      head: undefined,
      options: undefined,
      post: ['permission_denied'],
      put: ['permission_denied'],
      patch: ['permission_denied'],
      delete: ['permission_denied'],
    });
  });

  it("gives a route whose only 403 is the read-only key's an example that says so", () => {
    const op: Operation = { security: [{ apiKey: [] }], responses: {} };
    completeErrorAnswers(op, 'post');
    expect(op.responses?.['403'].content?.['application/json'].example).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('write scope') });
  });

  it('keeps the 403 codes a game route already documents, permission_denied once, and adds none to admin or public routes', () => {
    const join: Operation = { security: [{ apiKey: [] }], responses: { 403: error('permission_denied', 'banned') } };
    const ban: Operation = { security: [{ apiKey: [] }], responses: { 403: error('banned') } };
    const admin: Operation = { security: [{ adminToken: [] }], responses: {} };
    const open: Operation = { security: [], responses: {} };
    for (const op of [join, ban, admin, open]) completeErrorAnswers(op, 'post');
    expect(codes(join, '403')).toEqual(['permission_denied', 'banned']);
    expect(codes(ban, '403')).toEqual(['banned', 'permission_denied']);
    expect(admin.responses).not.toHaveProperty('403');
    expect(open.responses).not.toHaveProperty('403');
  });

  it('adds 413 and 415 to a route with a body, and an example envelope to every error answer', () => {
    const op: Operation = { security: [{ apiKey: [] }], requestBody: {}, responses: { 409: error('already_member', 'join_request_pending') } };
    completeErrorAnswers(op);
    expect(codes(op, '413')).toEqual(['payload_too_large']);
    expect(codes(op, '415')).toEqual(['unsupported_media_type']);
    expect(op.responses?.['409'].content?.['application/json'].example).toEqual({
      code: 'already_member',
      status: 409,
      message: expect.stringContaining('already a member'),
    });
  });
});
