import { createHmac } from 'node:crypto';
import { jobOutcomes } from '../runs/job-statuses.js';

/** What happened, as a message tells it: a job of a workspace reached a status. */
export interface NotificationEvent {
  /** What kind of delivery: a job's status, or a test from the settings pages. */
  kind: 'job' | 'test';
  organization: string;
  /** The workspace's name; null for an organization-wide test. */
  workspace: string | null;
  jobId: number;
  status: string;
  runUrl: string | null;
  workspaceUrl: string | null;
  commitId: string | null;
  failureReason: string | null;
}

/**
 * The pages of Terrakube's web UI an event links to, as Terrakube builds them from its UI's address:
 * the workspace's, and the run's when there is one; none without the address.
 */
export function uiPages(
  uiUrl: string | undefined,
  place: { organizationId: string; workspaceId: string | null; jobId: number | null },
): Pick<NotificationEvent, 'runUrl' | 'workspaceUrl'> {
  if (uiUrl === undefined || place.workspaceId === null) return { runUrl: null, workspaceUrl: null };
  const workspaceUrl = `${uiUrl}/organizations/${place.organizationId}/workspaces/${place.workspaceId}`;
  return { workspaceUrl, runUrl: place.jobId === null ? null : `${workspaceUrl}/runs/${place.jobId}` };
}

/** A failed job's reason as a message carries it: its end, at most `maxFailureReason` characters, as Terrakube trims its log's. */
export function failureReasonOf(status: string, reason: string | null): string | null {
  if (!failing.has(status) || reason === null || reason.trim() === '') return null;
  return reason.length > maxFailureReason ? reason.slice(reason.length - maxFailureReason) : reason;
}
const maxFailureReason = 500;

/** What a message needs of its configuration. */
export interface MessageStyle {
  channelType: string;
  messageStyle: string;
  configurationName: string;
}

const finished = new Set<string>(jobOutcomes.succeeded);
const failing = new Set<string>(jobOutcomes.unsuccessful);
const waiting = new Set<string>(jobOutcomes.needsPeople);

function headline(event: NotificationEvent): string {
  const where = event.workspace ?? event.organization;
  const status = finished.has(event.status) ? 'Completed' : waiting.has(event.status) ? 'Needs approval' : event.status;
  return `${where} - ${status}${event.kind === 'test' ? ' (test notification)' : ''}`;
}

/**
 * The body posted for an event: a Slack incoming-webhook message, a Teams message with an Adaptive
 * Card, or for a generic webhook the event's fields under Terrakube's names. SIMPLE is one line.
 */
export function messageBody(style: MessageStyle, event: NotificationEvent): string {
  const line = headline(event);
  switch (style.channelType) {
    case 'SLACK': {
      if (style.messageStyle === 'SIMPLE') return JSON.stringify({ text: line });
      const facts = [
        `Organization: ${event.organization}`,
        `Job: #${event.jobId}`,
        ...(event.commitId === null ? [] : [`Commit: ${event.commitId}`]),
      ];
      const blocks: unknown[] = [
        { type: 'header', text: { type: 'plain_text', text: line } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: facts.join(' | ') }] },
      ];
      if (failing.has(event.status) && event.failureReason !== null)
        blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Failure reason:* ${event.failureReason}` } });
      if (event.runUrl !== null)
        blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'View Run' }, url: event.runUrl }] });
      blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Sent by notification: *${style.configurationName}*` }] });
      const color = finished.has(event.status) ? '#2eb67d' : failing.has(event.status) ? '#e01e5a' : '#868686';
      return JSON.stringify({ text: line, attachments: [{ color, blocks }] });
    }
    case 'TEAMS': {
      const body: unknown[] = [{ type: 'TextBlock', wrap: true, size: 'Large', weight: 'Bolder', text: line }];
      if (style.messageStyle !== 'SIMPLE') {
        const facts = [
          { title: 'Organization', value: event.organization },
          { title: 'Job', value: `#${event.jobId}` },
          { title: 'Notification', value: style.configurationName },
        ];
        body.push({ type: 'FactSet', facts });
        if (failing.has(event.status) && event.failureReason !== null)
          body.push({ type: 'TextBlock', wrap: true, text: `Failure reason: ${event.failureReason}` });
      }
      const card = {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body,
        ...(event.runUrl === null || style.messageStyle === 'SIMPLE'
          ? {}
          : { actions: [{ type: 'Action.OpenUrl', title: 'View Run', url: event.runUrl }] }),
      };
      return JSON.stringify({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: card }] });
    }
    default:
      return JSON.stringify({
        organization: event.organization,
        workspace: event.workspace,
        jobId: event.jobId,
        status: event.status,
        runUrl: event.runUrl,
        workspaceUrl: event.workspaceUrl,
        commitId: event.commitId,
        failureReason: event.failureReason,
        configurationName: style.configurationName,
        test: event.kind === 'test',
      });
  }
}

/** The header a signed webhook message carries, as Terrakube names it. */
export const signatureHeader = 'x-terrakube-signature';

/** The signature of a body: HMAC-SHA256 of its bytes under the secret, in hexadecimal, as Terrakube signs. */
export function signature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}
