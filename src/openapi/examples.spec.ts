import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { exampleOf, type Components, type Schema } from './examples';

const components: Components = {
  GroupDto: {
    type: 'object',
    required: ['id', 'name', 'kind'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string', minLength: 1, maxLength: 120 },
      kind: { type: 'string', example: 'guild' },
      visibility: { type: 'string', enum: ['public', 'invite_only', 'secret'] },
      memberCount: { type: 'integer', minimum: 0 },
      createdAt: { type: 'string', format: 'date-time' },
      parentGroupId: { type: 'string', nullable: true },
      metadata: { type: 'object', additionalProperties: true },
      tags: { type: 'array', items: { type: 'string', maxLength: 3 }, minItems: 2 },
    },
  },
  Envelope: { type: 'object', properties: { code: { type: 'string', enum: ['bad_request', 'not_found'] } } },
};

describe('exampleOf', () => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);

  it('makes an answer with every property, valid against its schema', () => {
    const example = exampleOf({ $ref: '#/components/schemas/GroupDto' }, components, 'answer') as Record<string, unknown>;
    expect(Object.keys(example).sort()).toEqual(Object.keys(components.GroupDto.properties as Schema).sort());
    expect(example.kind).toBe('guild');
    expect(example.visibility).toBe('public');
    expect(example.metadata).toEqual({ region: 'eu-west' });
    expect(example.tags).toHaveLength(2);
    expect(ajv.validate(components.GroupDto, example)).toBe(true);
  });

  it('makes a request with the required properties and those with an example of their own', () => {
    const example = exampleOf({ $ref: '#/components/schemas/GroupDto' }, components, 'request') as Record<string, unknown>;
    expect(Object.keys(example).sort()).toEqual(['id', 'kind', 'name']);
  });

  it('takes every property of a request whose properties are all optional and plain', () => {
    const patch: Schema = { type: 'object', properties: { name: { type: 'string' }, priority: { type: 'integer', minimum: 0, maximum: 5 } } };
    expect(exampleOf(patch, components, 'request')).toEqual({ name: 'Night Watch', priority: 5 });
  });

  it('narrows by allOf: the later part wins, as an error answer narrows the envelope code', () => {
    const narrowed = { allOf: [{ $ref: '#/components/schemas/Envelope' }, { type: 'object', properties: { code: { type: 'string', enum: ['not_found'] } } }] };
    expect(exampleOf(narrowed, components, 'answer')).toEqual({ code: 'not_found' });
  });

  it('keeps strings within their length bounds and gives a stable uuid per name', () => {
    expect(exampleOf({ type: 'string', minLength: 20 }, components, 'answer', 'name')).toHaveLength(20);
    expect(exampleOf({ type: 'string', maxLength: 4 }, components, 'answer', 'name')).toBe('Nigh');
    const a = exampleOf({ type: 'string', format: 'uuid' }, components, 'answer', 'groupId');
    expect(a).toBe(exampleOf({ type: 'string', format: 'uuid' }, components, 'answer', 'groupId'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('stops at a self-referencing schema', () => {
    const tree: Components = { Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } };
    expect(() => exampleOf({ $ref: '#/components/schemas/Node' }, tree, 'answer')).not.toThrow();
  });
});
