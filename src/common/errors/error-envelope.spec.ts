import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { DB_UNAVAILABLE_RETRY_AFTER_S, resolveError } from './error-envelope';

const REQUEST_ID = 'req-123';

describe('resolveError', () => {
  describe('an ApiError', () => {
    it('keeps its code, status and message', () => {
      const sut = resolveError(new ApiError('role_name_taken', 'a role named "Officer" already exists'), REQUEST_ID);

      expect(sut).toEqual({
        envelope: { code: 'role_name_taken', status: 409, message: 'a role named "Officer" already exists' },
        headers: {},
        unexpected: false,
      });
    });

    it('keeps its headers', () => {
      const err = new ApiError('rate_limit_exceeded', 'slow down', { 'retry-after': '7' });

      const sut = resolveError(err, undefined);

      expect(sut.envelope).toEqual({ code: 'rate_limit_exceeded', status: 429, message: 'slow down' });
      expect(sut.headers).toEqual({ 'retry-after': '7' });
      expect(sut.unexpected).toBe(false);
    });
  });

  describe('a Nest HttpException', () => {
    it.each<[string, HttpException, { code: string; status: number; message: string }]>([
      ['NotFoundException', new NotFoundException(), { code: 'not_found', status: 404, message: 'Not Found' }],
      [
        'NotFoundException with a message',
        new NotFoundException('no such route'),
        { code: 'not_found', status: 404, message: 'no such route' },
      ],
      [
        'BadRequestException with several messages',
        new BadRequestException(['a', 'b']),
        { code: 'bad_request', status: 400, message: 'a; b' },
      ],
      [
        'UnauthorizedException',
        new UnauthorizedException(),
        { code: 'invalid_api_key', status: 401, message: 'Unauthorized' },
      ],
      [
        'ForbiddenException',
        new ForbiddenException('no'),
        { code: 'permission_denied', status: 403, message: 'no' },
      ],
      [
        'HttpException with a string response',
        new HttpException('too big', 413),
        { code: 'payload_too_large', status: 413, message: 'too big' },
      ],
      [
        'HttpException with a known code in its body',
        new HttpException({ code: 'banned', message: 'you are banned' }, 403),
        { code: 'banned', status: 403, message: 'you are banned' },
      ],
      [
        'HttpException whose status does not match its code',
        new HttpException({ code: 'not_found', message: 'gone' }, 410),
        { code: 'not_found', status: 404, message: 'gone' },
      ],
      [
        'HttpException with an unmapped 4xx status',
        new HttpException('teapot', 418),
        { code: 'bad_request', status: 400, message: 'teapot' },
      ],
    ])('maps %s to its envelope', (_case, err, envelope) => {
      expect(resolveError(err, REQUEST_ID)).toEqual({ envelope, headers: {}, unexpected: false });
    });

    it('turns a 5xx exception into an unexpected internal error without its message', () => {
      const sut = resolveError(new InternalServerErrorException('pool exhausted at db-01'), REQUEST_ID);

      expect(sut.envelope).toMatchObject({ code: 'internal', status: 500, requestId: REQUEST_ID });
      expect(sut.envelope.message).not.toContain('db-01');
      expect(sut.unexpected).toBe(true);
    });
  });

  describe("Fastify's own client errors", () => {
    it('rewrites an invalid JSON body as a bad_request without framework jargon', () => {
      const err = Object.assign(new Error("Body is not valid JSON but content-type is set to 'application/json'"), {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      });

      const sut = resolveError(err, REQUEST_ID);

      expect(sut.envelope).toEqual({ code: 'bad_request', status: 400, message: 'request body is not valid JSON' });
      expect(sut.envelope.message.toLowerCase()).not.toContain('fastify');
      expect(sut.envelope.message).not.toContain('FST_');
      expect(sut.unexpected).toBe(false);
    });

    it.each([
      ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'bad_request', 400, 'request body is not valid JSON'],
      ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large', 413, 'request body is too large'],
      ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type', 415, 'content-type must be application/json'],
      ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'bad_request', 400, 'content-length does not match the body'],
    ])('rewrites %s', (code, statusCode, envelopeCode, status, message) => {
      const sut = resolveError({ statusCode, code, message: 'Fastify says no' }, undefined);

      expect(sut.envelope).toEqual({ code: envelopeCode, status, message });
    });

    it('rewrites a Fastify client error that Nest wrapped in an HttpException, by its code on the cause', () => {
      const cause = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
      const sut = resolveError(new HttpException('Unsupported Media Type', 415, { cause }), REQUEST_ID);

      expect(sut.envelope).toEqual({ code: 'unsupported_media_type', status: 415, message: 'content-type must be application/json' });
    });

    it('keeps the message of a client error it has no rewrite for', () => {
      const err = { statusCode: 404, code: 'SOMETHING_ELSE', message: 'Route GET:/x not found' };

      const sut = resolveError(err, undefined);

      expect(sut).toEqual({
        envelope: { code: 'not_found', status: 404, message: 'Route GET:/x not found' },
        headers: {},
        unexpected: false,
      });
    });
  });

  describe('an unreachable database (DECISIONS §30)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' });

    it('becomes 503 service_unavailable with Retry-After and the request id, not internal', () => {
      const sut = resolveError(refused, REQUEST_ID);

      expect(sut.envelope).toEqual({
        code: 'service_unavailable',
        status: 503,
        message: expect.any(String),
        requestId: REQUEST_ID,
      });
      expect(sut.headers).toEqual({ 'retry-after': String(DB_UNAVAILABLE_RETRY_AFTER_S) });
      expect(Number.isInteger(DB_UNAVAILABLE_RETRY_AFTER_S) && DB_UNAVAILABLE_RETRY_AFTER_S >= 1).toBe(true);
      expect(sut.unexpected).toBe(false);
    });

    it('names the cause for the log but not in the response', () => {
      const sut = resolveError(refused, REQUEST_ID);

      expect(sut.unavailable).toBe('connect ECONNREFUSED 10.1.2.3:5432');
      expect(sut.envelope.message).not.toContain('10.1.2.3');
      expect(sut.envelope.message).not.toContain('ECONNREFUSED');
    });

    it("also when TypeORM wrapped the driver's error", () => {
      const err = new QueryFailedError('COMMIT', [], new Error('Connection terminated unexpectedly'));

      expect(resolveError(err, REQUEST_ID).envelope.code).toBe('service_unavailable');
    });

    it('a query error of another kind stays internal', () => {
      const err = new QueryFailedError('SELECT x', [], Object.assign(new Error('column "x" does not exist'), { code: '42703' }));

      const sut = resolveError(err, REQUEST_ID);

      expect(sut.envelope.code).toBe('internal');
      expect(sut.unexpected).toBe(true);
      expect(sut).not.toHaveProperty('unavailable');
    });
  });

  describe('an unexpected error', () => {
    it('becomes a 500 internal error with the request id and a generic message', () => {
      const sut = resolveError(new Error('SELECT * FROM secret'), REQUEST_ID);

      expect(sut.envelope).toMatchObject({ code: 'internal', status: 500, requestId: REQUEST_ID });
      expect(sut.envelope.message).not.toContain('SELECT');
      expect(sut.envelope.message).not.toContain('secret');
      expect(sut.headers).toEqual({});
      expect(sut.unexpected).toBe(true);
    });

    it('leaves the request id out when there is none', () => {
      const sut = resolveError(new Error('boom'), undefined);

      expect(sut.envelope).not.toHaveProperty('requestId');
      expect(sut.envelope).toMatchObject({ code: 'internal', status: 500 });
    });

    it.each<[string, unknown]>([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'boom'],
      ['an error with a 5xx statusCode', Object.assign(new Error('upstream down'), { statusCode: 502 })],
      ['an error with a non-numeric statusCode', { statusCode: '400', message: 'x' }],
    ])('treats %s as internal', (_case, err) => {
      const sut = resolveError(err, REQUEST_ID);

      expect(sut.envelope.code).toBe('internal');
      expect(sut.envelope.status).toBe(500);
      expect(sut.unexpected).toBe(true);
    });
  });
});
