import { ApiError, badArgument, notFound } from '../../errors.js';
import type { Engine, RecordAddress, Session } from '../../engine/index.js';
import type { ResourceDeclaration, Row } from '../../model/index.js';
import { deliveryTarget, type DeliveryTarget, type DeliveryView, type Notifier } from '../../notifications/deliveries.js';
import { uiPages, type NotificationEvent } from '../../notifications/messages.js';
import { status } from '../../runs/index.js';
import { idParameter } from '../../jsonapi/routes.js';
import { exampleIds } from '../description/examples.js';
import { requestActor, sessionOf } from './request-session.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';

/** The declarations the notification endpoints serve: the configuration and the link naming its workspace. */
export interface NotificationRecords {
  configuration: ResourceDeclaration;
  workspaceLink: string;
  channelTypes: readonly string[];
}

/** The most deliveries one list answers, and how many it answers unless asked. */
const mostListed = 100;
const listedByDefault = 10;

// Not a placeholder of a record the document's examples make: deliveries are made by sending.
const exampleDeliveryId = '0192f3a0-8c4e-7d10-9a6b-7e00000000d1';

const deliverySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'configurationId', 'jobId', 'configurationName', 'channelType', 'status', 'attemptCount', 'createdDate'],
  properties: {
    id: { type: 'string' },
    configurationId: { type: 'string' },
    jobId: { type: 'integer', description: 'the job whose status was sent; 0 for a test' },
    configurationName: { type: 'string' },
    channelType: { type: 'string' },
    event: { type: 'string', enum: ['test', 'job'] },
    status: { type: 'string', enum: ['SENT', 'FAILED'] },
    attemptCount: { type: 'integer' },
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    lastError: { type: ['string', 'null'], description: 'why the last attempt failed; names the host, never the path' },
    responseStatus: { type: ['integer', 'null'], description: "the destination's answer status; null when none came" },
    responseBody: { type: ['string', 'null'], description: "the start of the destination's answer" },
    durationMs: { type: ['integer', 'null'] },
    createdDate: { type: 'string', format: 'date-time' },
  },
};

const exampleDelivery = (configurationId: string) => ({
  id: exampleDeliveryId,
  configurationId,
  jobId: 0,
  configurationName: 'Prod alerts',
  channelType: 'WEBHOOK',
  event: 'test',
  status: 'SENT',
  attemptCount: 1,
  lastAttemptAt: '2025-01-15T09:30:00.120Z',
  lastError: null,
  responseStatus: 200,
  responseBody: 'ok',
  durationMs: 118,
  createdDate: '2025-01-15T09:30:00.000Z',
});

/**
 * Terrakube's notification endpoints, in plain JSON as its controllers speak them: a test message
 * through a saved configuration, or to a destination before it is saved, and a workspace's recent
 * deliveries with a retry of a failed one. A delivery that fails answers 502 with the reason.
 */
export function notificationRoutes(
  engine: Engine,
  notifier: Notifier,
  records: NotificationRecords,
  /** The web UI's address (STRATUM_UI_URL): a test message links its workspace's page. */
  uiUrl: string | undefined,
): DescribedRoute[] {
  const { registry } = engine;
  const { configuration } = records;
  const tenant = registry.tenant;
  const link = registry.relationship(configuration, records.workspaceLink);
  const tenantLink = registry.parentLink(configuration);
  if (link?.kind !== 'toOne' || tenantLink === undefined || registry.parentOf(configuration) !== tenant)
    throw new Error(`${configuration.type} must live in the ${tenant.type} and link a record through ${records.workspaceLink}`);
  const workspace = registry.target(link);
  // The placeholder ids of the document's examples, which the records its create examples make replace.
  const ids = exampleIds(registry);
  const exampleConfigurationId = ids.get(configuration.type) ?? '';
  const exampleWorkspaceId = ids.get(workspace.type) ?? '';
  const exampleOrganizationId = ids.get(tenant.type) ?? '';
  const configurationAt = (id: string): RecordAddress => ({ resource: configuration, ancestors: [], id });
  const workspaceAt = (id: string): RecordAddress => ({ resource: workspace, ancestors: [], id });

  /** The configuration as delivery needs it, and the event of a test message from it. */
  const testOf = async (session: Session, row: Row): Promise<{ target: DeliveryTarget; event: NotificationEvent }> => {
    const organization = await session.find({ resource: tenant, ancestors: [], id: String(row[tenantLink.column]) });
    const workspaceId = row[link.column];
    const place = typeof workspaceId === 'string' ? await session.find(workspaceAt(workspaceId)) : undefined;
    return {
      target: targetOf(row, link.column),
      event: {
        ...testEvent(String(organization.name), place === undefined ? null : String(place.name)),
        // A test has no run to link to (Terrakube's sends none), but its workspace has a page.
        workspaceUrl: uiPages(uiUrl, {
          organizationId: String(organization.id),
          workspaceId: place === undefined ? null : String(place.id),
          jobId: null,
        }).workspaceUrl,
      },
    };
  };

  const configurationParameter = idParameter(configuration);
  const workspaceParameter = idParameter(workspace);
  const tenantParameter = idParameter(tenant);
  const idSchema = { type: 'string', maxLength: 64 };
  const failedDelivery = (reason: string | undefined) =>
    new ApiError(502, { code: 'delivery_failed', detail: `The notification was not delivered: ${reason ?? 'no answer'}.` });

  return [
    {
      method: 'POST',
      url: `/notification/v1/configuration/:${configurationParameter}/test`,
      operationId: 'test_notification_configuration',
      summary: 'Send a test message through a saved configuration; the delivery is recorded',
      params: { [configurationParameter]: idSchema },
      examples: { params: { [configurationParameter]: exampleConfigurationId } },
      success: { status: 200, description: 'Delivered: the recorded delivery.', schema: deliverySchema },
      errors: [401, 403, 404, 502],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply);
        const id = (request.params as Record<string, string>)[configurationParameter] ?? '';
        const { target, event } = await testOf(session, await session.usable(configurationAt(id), 'update', true));
        const delivery = await notifier.deliver(target, event, requestActor(request));
        if (delivery.status !== 'SENT') throw failedDelivery(delivery.lastError ?? undefined);
        return reply.send(delivery);
      },
    },
    {
      method: 'POST',
      url: `/notification/v1/${tenant.type}/:${tenantParameter}/configuration/test`,
      operationId: 'test_notification_destination',
      summary: 'Send a test message to a destination before its configuration is saved; nothing is recorded',
      params: { [tenantParameter]: idSchema },
      body: {
        type: 'object',
        required: ['channelType', 'destinationUrl'],
        additionalProperties: false,
        properties: {
          channelType: { type: 'string', enum: [...records.channelTypes] },
          destinationUrl: { type: 'string', minLength: 1, maxLength: 2048 },
          signingSecret: { type: ['string', 'null'], maxLength: 512 },
          name: { type: ['string', 'null'], maxLength: 128 },
          messageStyle: { type: ['string', 'null'], enum: ['DETAILED', 'SIMPLE', null] },
        },
      },
      examples: {
        params: { [tenantParameter]: exampleOrganizationId },
        body: { channelType: 'WEBHOOK', destinationUrl: 'https://hooks.example.com/stratum', signingSecret: 'a shared secret' },
      },
      success: { status: 200, description: 'Delivered.' },
      errors: [400, 401, 403, 404, 415, 502],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply);
        const tenantId = (request.params as Record<string, string>)[tenantParameter] ?? '';
        await session.mayCreate({ resource: configuration, ancestors: [{ resource: tenant, id: tenantId }] });
        const body = request.body as {
          channelType: string;
          destinationUrl: string;
          signingSecret?: string | null;
          name?: string | null;
          messageStyle?: string | null;
        };
        const organization = await session.find({ resource: tenant, ancestors: [], id: tenantId });
        const target: DeliveryTarget = {
          id: '',
          organizationId: tenantId,
          workspaceId: null,
          name: body.name ?? 'Test Notification',
          channelType: body.channelType,
          destinationUrl: body.destinationUrl,
          messageStyle: body.messageStyle ?? 'DETAILED',
          signingSecret: body.signingSecret ?? null,
          active: true,
        };
        const refused = await notifier.tryOut(target, testEvent(String(organization.name), null));
        if (refused !== undefined) throw failedDelivery(refused);
        return reply.send();
      },
    },
    {
      method: 'GET',
      url: `/notification/v1/${workspace.type}/:${workspaceParameter}/deliveries`,
      operationId: 'workspace_notification_deliveries',
      summary: "The newest deliveries of a workspace's own configurations, for those who manage the workspace",
      params: { [workspaceParameter]: idSchema },
      query: {
        limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `how many, 1 to ${mostListed}; ${listedByDefault} by default` },
      },
      examples: { params: { [workspaceParameter]: exampleWorkspaceId }, answer: [exampleDelivery(exampleConfigurationId)] },
      success: { status: 200, description: 'Deliveries, newest first.', schema: { type: 'array', items: deliverySchema } },
      errors: [400, 401, 403, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply);
        const id = (request.params as Record<string, string>)[workspaceParameter] ?? '';
        const limit = limitOf((request.query as { limit?: string }).limit);
        await session.usable(workspaceAt(id), 'update');
        return reply.send(await notifier.recent({ workspaceId: id }, limit));
      },
    },
    {
      method: 'GET',
      url: `/notification/v1/configuration/:${configurationParameter}/deliveries`,
      operationId: 'notification_configuration_deliveries',
      summary: 'The newest deliveries of one configuration (an organization-wide one has no workspace to list them under)',
      params: { [configurationParameter]: idSchema },
      query: {
        limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `how many, 1 to ${mostListed}; ${listedByDefault} by default` },
      },
      examples: { params: { [configurationParameter]: exampleConfigurationId }, answer: [exampleDelivery(exampleConfigurationId)] },
      success: { status: 200, description: 'Deliveries, newest first.', schema: { type: 'array', items: deliverySchema } },
      errors: [400, 401, 403, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply);
        const id = (request.params as Record<string, string>)[configurationParameter] ?? '';
        const limit = limitOf((request.query as { limit?: string }).limit);
        await session.usable(configurationAt(id), 'update');
        return reply.send(await notifier.recent({ configurationId: id }, limit));
      },
    },
    {
      method: 'POST',
      url: `/notification/v1/${workspace.type}/:${workspaceParameter}/deliveries/:deliveryId/retry`,
      operationId: 'retry_notification_delivery',
      summary: 'Send a failed delivery again, to its configuration as it is now; the answer is the delivery after the attempt',
      params: { [workspaceParameter]: idSchema, deliveryId: idSchema },
      examples: { params: { [workspaceParameter]: exampleWorkspaceId, deliveryId: exampleDeliveryId } },
      success: { status: 200, description: 'The delivery after the attempt: SENT, or FAILED with the reason.', schema: deliverySchema },
      errors: [401, 403, 404, 409],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply);
        const params = request.params as Record<string, string>;
        const workspaceId = params[workspaceParameter] ?? '';
        const deliveryId = params.deliveryId ?? '';
        await session.usable(workspaceAt(workspaceId), 'update');
        const delivery = await notifier.find(deliveryId);
        if (delivery === undefined || delivery.workspace_id !== workspaceId) throw notFound('delivery', deliveryId);
        if (delivery.status === 'SENT')
          throw new ApiError(409, { code: 'conflict', detail: 'This delivery was sent; only a failed one is retried.' });
        const row = await session.usable(configurationAt(String(delivery.configuration_id)), 'update', true);
        const retried: DeliveryView = await notifier.retry(targetOf(row, link.column), delivery, requestActor(request));
        return reply.send(retried);
      },
    },
  ];
}

/** A configuration as delivery needs it, its deliveries recorded under its own workspace (none: organization-wide). */
function targetOf(row: Row, workspaceColumn: string): DeliveryTarget {
  const workspaceId = row[workspaceColumn];
  return deliveryTarget(row, typeof workspaceId === 'string' ? workspaceId : null);
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return listedByDefault;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > mostListed)
    throw badArgument('limit', `limit is a whole number from 1 to ${mostListed}.`);
  return limit;
}

/** A test message: a completed job 0, as Terrakube's test sends, with nothing to link to. */
function testEvent(organization: string, workspace: string | null): NotificationEvent {
  return {
    kind: 'test',
    organization,
    workspace,
    jobId: 0,
    status: status.completed,
    runUrl: null,
    workspaceUrl: null,
    commitId: null,
    failureReason: null,
  };
}
