import 'reflect-metadata';
import type { ArgumentMetadata, ValidationError } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Length, Min, ValidateNested, validate } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { describeValidationErrors, SvcValidationPipe } from './validation.pipe';

class RowDto {
  @IsUUID()
  userId!: string;
}

class CreateGroupDto {
  @IsString()
  @Length(1, 40)
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  size?: number;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => RowDto)
  rows?: RowDto[];
}

class OptionalOnlyDto {
  @IsOptional()
  @IsString()
  note?: string;
}

class PageQueryDto {
  @IsOptional()
  @IsString()
  limit?: string;

  @IsOptional()
  actions?: string | string[];
}

const USER_ID = '3b241101-e2bb-4255-8caf-4136c566a962';

const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype, data: '' });

/** The error `promise` rejects with, or a failure when it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const error = (property: string, constraints?: Record<string, string>, children?: ValidationError[]) =>
  ({ property, constraints, children }) as ValidationError;

describe('describeValidationErrors', () => {
  it('names the field of a message that starts with it', () => {
    expect(describeValidationErrors([error('name', { isString: 'name must be a string' })])).toEqual([
      'name must be a string',
    ]);
  });

  it('prefixes "path: " to a message that does not start with the field', () => {
    expect(describeValidationErrors([error('tags', { isString: 'each value in tags must be a string' })])).toEqual([
      'tags: each value in tags must be a string',
    ]);
  });

  it('does not mistake a field that merely starts the first word for the field name', () => {
    expect(describeValidationErrors([error('id', { custom: 'identifier is wrong' })])).toEqual([
      'id: identifier is wrong',
    ]);
  });

  it('lists every constraint and every failing field in order', () => {
    const errors = [
      error('name', { isString: 'name must be a string', isLength: 'name must be shorter than 40 characters' }),
      error('size', { min: 'size must not be less than 1' }),
    ];

    expect(describeValidationErrors(errors)).toEqual([
      'name must be a string',
      'name must be shorter than 40 characters',
      'size must not be less than 1',
    ]);
  });

  it('builds dotted paths for nested errors', () => {
    const errors = [
      error('rows', undefined, [
        error('0', undefined, [error('userId', { isUuid: 'userId must be a UUID' })]),
        error('2', undefined, [error('role', { isString: 'not a string' })]),
      ]),
    ];

    expect(describeValidationErrors(errors)).toEqual(['rows.0.userId must be a UUID', 'rows.2.role: not a string']);
  });

  it('returns nothing for no errors', () => {
    expect(describeValidationErrors([])).toEqual([]);
  });

  it('describes the errors class-validator reports for a nested DTO', async () => {
    const row = Object.assign(new RowDto(), { userId: 'x' });
    const dto = Object.assign(new CreateGroupDto(), { name: 'Knights', rows: [row] });

    const errors = await validate(dto);

    expect(describeValidationErrors(errors)).toEqual(['rows.0.userId must be a UUID']);
  });
});

describe('SvcValidationPipe', () => {
  const sut = new SvcValidationPipe();

  it('returns a valid body as an instance of its DTO, unknown fields stripped', async () => {
    const result = await sut.transform(
      { name: 'Knights', size: 3, rows: [{ userId: USER_ID }], extra: 'dropped' },
      body(CreateGroupDto),
    );

    expect(result).toBeInstanceOf(CreateGroupDto);
    expect(result).toEqual({ name: 'Knights', size: 3, rows: [{ userId: USER_ID }] });
    expect((result as CreateGroupDto).rows?.[0]).toBeInstanceOf(RowDto);
  });

  it.each([undefined, null, ''])('validates a missing body (%p) as an empty object', async (value) => {
    await expect(sut.transform(value, body(OptionalOnlyDto))).resolves.toEqual({});
  });

  it('reports the required fields of a missing body', async () => {
    const err = await rejectionOf(sut.transform(undefined, body(CreateGroupDto)));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request' });
    expect((err as ApiError).message).toMatch(/^name /);
  });

  it.each<[string, unknown]>([
    ['an array', [{ name: 'Knights' }]],
    ['a string', 'Knights'],
    ['a number', 42],
    ['a boolean', true],
  ])('refuses %s body with bad_request', async (_case, value) => {
    const err = await rejectionOf(sut.transform(value, body(CreateGroupDto)));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400, message: 'request body must be a JSON object' });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a wrong type', { name: 42 }, /^name must be/],
    ['a value out of range', { name: 'Knights', size: 0 }, /^size must not be less than 1$/],
    [
      'a nested field',
      { name: 'Knights', rows: [{ userId: USER_ID }, { userId: 'nope' }] },
      /^rows\.1\.userId must be a UUID$/,
    ],
  ])('refuses %s with a bad_request naming the field', async (_case, value, message) => {
    const err = await rejectionOf(sut.transform(value, body(CreateGroupDto)));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect((err as ApiError).message).toMatch(message);
  });

  it('reports one reason per failing field', async () => {
    const err = await rejectionOf(sut.transform({ name: '', size: 'big' }, body(CreateGroupDto)));

    expect((err as ApiError).message.split('; ')).toHaveLength(2);
    expect((err as ApiError).message).toMatch(/^name .*; size /);
  });

  it('says a query parameter taken once was given more than once; one that may repeat passes', async () => {
    const query: ArgumentMetadata = { type: 'query', metatype: PageQueryDto, data: undefined };
    const err = await rejectionOf(sut.transform({ limit: ['1', '2'], actions: ['a', 'b'] }, query));

    expect(err).toMatchObject({ code: 'bad_request', status: 400, message: 'limit must be given once, not 2 times' });
    await expect(sut.transform({ limit: '1', actions: ['a', 'b'] }, query)).resolves.toMatchObject({ limit: '1', actions: ['a', 'b'] });
    expect(await rejectionOf(sut.transform({ limit: 7 }, query))).toMatchObject({ message: 'limit must be a string' });
  });

  it('leaves non-body arguments without a DTO untouched', async () => {
    await expect(sut.transform(['a'], { type: 'query', metatype: undefined, data: 'x' })).resolves.toEqual(['a']);
  });
});
