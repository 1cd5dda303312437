import type { SvcEvent } from '../events/event';

export type WebhookFormat = 'svc' | 'discord' | 'slack' | 'standard';
export const WEBHOOK_FORMATS: readonly WebhookFormat[] = ['svc', 'discord', 'slack', 'standard'];

/** The fields worth showing in a chat message: the scope, and who the event is about. */
function facts(e: SvcEvent): [string, string][] {
  const out: [string, string][] = [['Game', e.gameId]];
  if (e.groupId) out.push(['Group', e.groupId]);
  const member = e.member as { userId?: string; status?: string } | undefined;
  if (member?.userId) out.push(['User', member.userId]);
  for (const key of ['svcUserId', 'actorSvcUserId', 'targetSvcUserId', 'bySvcUserId', 'otherSvcUserId', 'removedBySvcUserId', 'reason']) {
    const v = e[key];
    if (typeof v === 'string' && v) out.push([key, v]);
  }
  return out;
}

const title = (e: SvcEvent) => `Guildhall: ${e.type}`;

/** A Discord webhook message with one embed (Discord's "Execute Webhook" body). */
export function discordPayload(e: SvcEvent): Record<string, unknown> {
  return {
    username: 'Guildhall',
    embeds: [
      {
        title: title(e),
        timestamp: e.occurredAt,
        fields: facts(e).map(([name, value]) => ({ name, value: value.slice(0, 1024), inline: true })),
        footer: { text: `event ${e.id}` },
      },
    ],
  };
}

/** A Slack incoming-webhook message in Block Kit, with a plain-text fallback. */
export function slackPayload(e: SvcEvent): Record<string, unknown> {
  return {
    text: title(e),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title(e).slice(0, 150) } },
      { type: 'section', fields: facts(e).slice(0, 10).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}`.slice(0, 2000) })) },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${e.occurredAt} · event ${e.id}` }] },
    ],
  };
}

/** The body of a delivery in the endpoint's format: `svc` and `standard` send the event itself. */
export function formatPayload(format: WebhookFormat, e: SvcEvent): Record<string, unknown> {
  switch (format) {
    case 'discord':
      return discordPayload(e);
    case 'slack':
      return slackPayload(e);
    default:
      return e;
  }
}
