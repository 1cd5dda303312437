import type { SvcEvent } from '../events/event';
import { discordPayload, formatPayload, slackPayload, WEBHOOK_FORMATS } from './payload-formats';

/**
 * SPEC §6: `svc` sends the JSON event; `discord` a Discord embed payload (Execute Webhook body);
 * `slack` a Slack Block Kit message. The layouts are not fixed by SPEC, so these tests hold the
 * formats to what the two platforms accept (Discord: embeds ≤ 10, title ≤ 256, ≤ 25 fields, name
 * ≤ 256, value ≤ 1024; Slack: header plain_text ≤ 150, section ≤ 10 fields of ≤ 2000 chars).
 */
const joined: SvcEvent = {
  id: '0123456789abcdef01234567',
  type: 'member.joined',
  gameId: '0190a0b0-0000-7000-8000-000000000001',
  groupId: '0190a0b0-0000-7000-8000-000000000002',
  occurredAt: '2026-01-02T03:04:05.678Z',
  member: {
    id: '0190a0b0-0000-7000-8000-000000000003',
    groupId: '0190a0b0-0000-7000-8000-000000000002',
    userId: 'player-42',
    status: 'active',
    roles: [],
    metadata: {},
    notesPublic: null,
    notesPrivate: null,
    joinedAt: '2026-01-02T03:04:05.678Z',
    bannedUntil: null,
  },
};

const banned: SvcEvent = {
  id: 'fedcba9876543210fedcba98',
  type: 'game.user.banned',
  gameId: '0190a0b0-0000-7000-8000-000000000001',
  occurredAt: '2026-01-02T03:04:05.678Z',
  svcUserId: 'cheater-7',
  reason: 'x'.repeat(3000),
  expiresAt: null,
};

type DiscordField = { name: string; value: string; inline?: boolean };
type DiscordEmbed = { title: string; timestamp?: string; fields: DiscordField[]; footer?: { text: string } };

const frozen = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('svc format', () => {
  it('is the event itself, unchanged', () => {
    const before = frozen(joined);
    expect(formatPayload('svc', joined)).toBe(joined);
    expect(formatPayload('svc', joined)).toEqual(before);
    expect(formatPayload('svc', banned)).toEqual(frozen(banned));
  });

  it('the four formats are svc, discord, slack, standard', () => {
    expect([...WEBHOOK_FORMATS].sort()).toEqual(['discord', 'slack', 'standard', 'svc']);
  });

  it('standard sends the event itself too', () => {
    expect(formatPayload('standard', joined)).toBe(joined);
  });
});

describe('discord format', () => {
  it('is an Execute Webhook body with one embed naming the event type', () => {
    const p = formatPayload('discord', joined) as { embeds: DiscordEmbed[]; content?: string };
    expect(p).toEqual(discordPayload(joined));
    expect(Array.isArray(p.embeds)).toBe(true);
    expect(p.embeds.length).toBeGreaterThanOrEqual(1);
    expect(p.embeds.length).toBeLessThanOrEqual(10);
    const [embed] = p.embeds;
    expect(typeof embed.title).toBe('string');
    expect(embed.title).toContain('member.joined');
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.timestamp).toBe(joined.occurredAt);
  });

  it('shows the scope and the user as fields within the Discord limits', () => {
    const [embed] = (discordPayload(joined) as { embeds: DiscordEmbed[] }).embeds;
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    for (const f of embed.fields) {
      expect(typeof f.name).toBe('string');
      expect(f.name.length).toBeGreaterThan(0);
      expect(f.name.length).toBeLessThanOrEqual(256);
      expect(typeof f.value).toBe('string');
      expect(f.value.length).toBeGreaterThan(0);
      expect(f.value.length).toBeLessThanOrEqual(1024);
    }
    const values = embed.fields.map((f) => f.value);
    expect(values).toEqual(expect.arrayContaining([joined.gameId, joined.groupId, 'player-42']));
  });

  it('carries the event id, so a reader can correlate it', () => {
    expect(JSON.stringify(discordPayload(joined))).toContain(joined.id);
  });

  it('truncates long values to 1024 characters (a 3000-char ban reason)', () => {
    const [embed] = (discordPayload(banned) as { embeds: DiscordEmbed[] }).embeds;
    const reason = embed.fields.find((f) => f.value.startsWith('xxx'));
    expect(reason).toBeDefined();
    expect(reason!.value.length).toBe(1024);
    expect(embed.fields.map((f) => f.value)).toContain('cheater-7');
  });

  it('does not modify the event', () => {
    const before = frozen(joined);
    discordPayload(joined);
    expect(joined).toEqual(before);
  });
});

describe('slack format', () => {
  type Block = { type: string; text?: { type: string; text: string }; fields?: { type: string; text: string }[]; elements?: unknown[] };

  it('is a Block Kit message with a plain-text fallback naming the event type', () => {
    const p = formatPayload('slack', joined) as { text: string; blocks: Block[] };
    expect(p).toEqual(slackPayload(joined));
    expect(typeof p.text).toBe('string');
    expect(p.text).toContain('member.joined');
    expect(Array.isArray(p.blocks)).toBe(true);
    expect(p.blocks.length).toBeGreaterThan(0);
    expect(p.blocks.length).toBeLessThanOrEqual(50);
    for (const b of p.blocks) expect(['header', 'section', 'context', 'divider']).toContain(b.type);
  });

  it('has a plain_text header of at most 150 characters', () => {
    const header = (slackPayload(joined).blocks as Block[]).find((b) => b.type === 'header');
    expect(header?.text?.type).toBe('plain_text');
    expect(header!.text!.text).toContain('member.joined');
    expect(header!.text!.text.length).toBeLessThanOrEqual(150);
  });

  it('lists the facts as at most 10 mrkdwn section fields of at most 2000 characters', () => {
    for (const e of [joined, banned]) {
      const sections = (slackPayload(e).blocks as Block[]).filter((b) => b.type === 'section');
      expect(sections.length).toBeGreaterThan(0);
      for (const s of sections) {
        expect(s.fields!.length).toBeGreaterThan(0);
        expect(s.fields!.length).toBeLessThanOrEqual(10);
        for (const f of s.fields!) {
          expect(f.type).toBe('mrkdwn');
          expect(f.text.length).toBeLessThanOrEqual(2000);
        }
      }
    }
    const text = JSON.stringify(slackPayload(joined));
    expect(text).toContain('player-42');
    expect(text).toContain(joined.groupId);
    expect(text).toContain(joined.id);
  });

  it('does not modify the event', () => {
    const before = frozen(banned);
    slackPayload(banned);
    expect(banned).toEqual(before);
  });
});
