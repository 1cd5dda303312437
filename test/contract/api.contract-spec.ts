import type { Operation } from './helpers/api-document';
import { startRig, type Rig } from './helpers/rig';
import { badRequestSweep, notFoundSweep, unauthorisedSweep } from './helpers/sweeps';
import { coverageGaps } from './helpers/coverage';
import { admissionsScenario } from './scenarios/admissions';
import { eventsScenario } from './scenarios/events-webhooks';
import { friendsScenario } from './scenarios/friends';
import { groupsScenario } from './scenarios/groups';
import { moderationScenario } from './scenarios/moderation';
import { notificationsScenario } from './scenarios/notifications';
import { operatorScenario } from './scenarios/operator';
import { privacyScenario } from './scenarios/privacy';
import { makeWorld, type World } from './scenarios/world';

/** Their inputs are described whole: a request the service refuses, Prism refuses first. */
const NO_400 = ['GET /v1/admin/games', 'POST /v1/admin/erasures/apply'];

/**
 * The API document as a contract: every operation of GET /openapi.json is called through
 * `prism proxy --errors`, which fails any request or answer that the document does not describe.
 */
describe('the API document holds for every operation (through Prism)', () => {
  let rig: Rig;
  let w: World;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    rig = await startRig();
    w = await makeWorld(rig);
  }, 120_000);
  afterAll(() => rig?.stop());

  it('groups, members, roles and permissions', async () => Object.assign(ids, await groupsScenario(w)));
  it('invitations, join requests and bans', () => admissionsScenario(w, need('groupId')));
  it('friends, tags, blocks and visibility', () => friendsScenario(w));
  it('event feed, streams and webhooks', async () => Object.assign(ids, await eventsScenario(w, need('groupId'))));
  it('public, admin and analytics routes', () => operatorScenario(w, need('groupId')));
  it('moderation through the admin routes', () => moderationScenario(w));
  it("a player's notifications", () => notificationsScenario(w));
  it("a player's erasure and the erasure ledger", () => privacyScenario(w));

  it('401 envelope from every route that takes a credential', async () => {
    expect((await unauthorisedSweep([...rig.ledger.ops.values()], rig.doc, w.admin)).mismatches).toEqual([]);
  });

  it('404 envelope from every route that documents it, for ids nothing has', async () => {
    // Game B has friends and blocks off: there every friends route answers 404 too.
    expect((await notFoundSweep([...rig.ledger.ops.values()], rig.doc, w.apiB)).mismatches).toEqual([]);
  });

  it('400 envelope from every route that documents it, for input the document allows and the service refuses', async () => {
    const real = (op: Operation) => Object.fromEntries(op.pathParams.map((name) => [name, realId(op, name)]));
    const result = await badRequestSweep([...rig.ledger.ops.values()], rig.doc, w.api, real);
    expect(result.mismatches).toEqual([]);
    expect([...result.unreachable].sort()).toEqual([...NO_400].sort());
  });

  /** An id made by an earlier scenario: when that one failed, say so rather than fail obscurely. */
  function need(name: string): string {
    if (!ids[name]) throw new Error(`no ${name}: the scenario that makes it failed (see above)`);
    return ids[name];
  }

  /** The id of a thing the scenarios made, for a route's path parameter. */
  function realId(op: Operation, name: string): string {
    if (name === 'id') return need(op.path.includes('/webhooks/') ? 'webhookId' : 'groupId');
    return { groupId: need('groupId'), gameId: w.gameId, userId: 'ann' }[name] ?? name;
  }

  it('every operation answered its success and main errors, and Prism found no violation', () => {
    expect(coverageGaps(rig.ledger, NO_400)).toEqual([]);
    expect(rig.ledger.violations).toEqual([]);
  });
});
