import { answerCheck, compileAnswerSchema } from '../helpers/answer-schemas';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The check every in-process e2e test runs under (test-app.ts → answer-schemas.ts): each 2xx JSON
 * answer is validated against its operation's schema in the API document. Here: that it really
 * checks answers, and that it refuses what the document does not allow.
 */
describe('answers against the API document', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth } = await authedGame(t));
  });
  afterAll(() => t.close());

  it('checks the answers of the in-process app, each against its operation', async () => {
    const before = answerCheck.checked;
    const created = await t.http.post('/v1/groups').set(auth).send({ name: 'checked', kind: 'guild', creatorUserId: 'p1' });
    expect(created.status).toBe(201);
    expect((await t.http.get(`/v1/groups/${created.body.id}`).set(auth)).status).toBe(200);
    expect((await t.http.get(`/v1/groups/${created.body.id}/members`).set(auth)).status).toBe(200);
    expect(answerCheck.checked - before).toBe(3);
    expect(answerCheck.mismatches).toEqual([]);
  });

  it("refuses a body with a field the schema does not list, a wrong type or a missing field", async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const validate = compileAnswerSchema(doc.paths['/v1/groups/{id}'].get.responses['200'].content['application/json'].schema, doc.components.schemas);
    const group = (await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'shape' })).body;
    expect(validate(group) ? [] : validate.errors).toEqual([]);
    expect(validate({ ...group, undocumented: 1 })).toBe(false);
    expect(validate({ ...group, memberCount: 'three' })).toBe(false);
    const { name: _, ...nameless } = group;
    expect(validate(nameless)).toBe(false);
  });
});
