import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { adminGroup, createOrganization, createTemplate, describeEachStore, resourceDocument, type Response } from './harness.ts';
import { errors as graphqlErrors, literal } from './graphql-helpers.ts';

const jsonApi = 'application/vnd.api+json';
const atomicType = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';
const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The names of the templates every new organization starts with. */
const defaultNames = ['Plan', 'Plan and apply', 'Destroy'];

/** Standard, padded base64, as the Terraform provider encodes `tcl`. */
const base64 = (text: string) => Buffer.from(text).toString('base64');
const flowText =
  'flow:\n  - type: "terraformPlan"\n    name: "Plan"\n    step: 100\n  - type: "terraformApply"\n    name: "Apply"\n    step: 200\n';
const validTcl = base64(flowText);

const templatesPath = (organizationId: string) => `/api/v1/organization/${organizationId}/template`;
const templatePath = (organizationId: string, templateId: string) => `${templatesPath(organizationId)}/${templateId}`;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface ExpectedError {
  code?: string;
  pointer?: string;
  detail?: string;
}

/** Asserts a JSON:API error document of the given status whose first error matches; returns all errors. */
function assertError(response: Response, status: number, expected: ExpectedError = {}) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.headers.get('content-type'), jsonApi);
  assert.ok(Array.isArray(response.body?.errors) && response.body.errors.length > 0, `not an error document: ${response.text}`);
  const [first] = response.body.errors;
  assert.equal(first.status, String(status));
  if (expected.code !== undefined) assert.equal(first.code, expected.code);
  if (expected.pointer !== undefined) assert.deepEqual(first.source, { pointer: expected.pointer });
  if (expected.detail !== undefined) assert.equal(first.detail, expected.detail);
  return response.body.errors as { status: string; code: string; detail: string; source?: { pointer?: string } }[];
}

describeEachStore('templates', (context) => {
  /** The templates of an organization as an administrator lists them. */
  async function listTemplates(organizationId: string): Promise<{ id: string; attributes: Record<string, unknown> }[]> {
    const response = await context.server.get(templatesPath(organizationId));
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  }

  /**
   * Asserts that an organization holds exactly its default templates and the named others, in any
   * order (records created in the same millisecond tie on createdDate): what a rejected write left behind.
   */
  async function assertTemplateNames(organizationId: string, others: string[]): Promise<void> {
    const names = (await listTemplates(organizationId)).map((t) => String(t.attributes.name));
    assert.deepEqual(names.sort(), [...defaultNames, ...others].sort());
  }

  /** Asserts that an organization holds only the templates it started with: a rejected write left nothing behind. */
  const assertOnlyDefaults = (organizationId: string) => assertTemplateNames(organizationId, []);

  /** A template's full representation, as an administrator reads it. */
  async function readTemplate(organizationId: string, templateId: string) {
    const response = await context.server.get(templatePath(organizationId, templateId));
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  }

  const post = (organizationId: string, body: unknown) => context.server.post(templatesPath(organizationId), body);
  const postRaw = (organizationId: string, raw: string) => context.server.request('POST', templatesPath(organizationId), { raw });
  const templateDocument = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    resourceDocument('template', attributes, extra);

  // --- The operations of the template table, with their status codes ---

  it("the list answers 200 with the organization's templates in creation order, each linked to its organization", async () => {
    const organizationId = await createOrganization(context.server);
    const otherId = await createOrganization(context.server);
    // Apart in time, so that creation order is not left to the id that breaks ties.
    await pause(10);
    const first = await createTemplate(context.server, organizationId, { name: 'first' });
    await pause(10);
    const second = await createTemplate(context.server, organizationId, { name: 'second' });
    await createTemplate(context.server, otherId, { name: 'elsewhere' });

    const response = await context.server.get(templatesPath(organizationId));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), jsonApi);
    const names = response.body.data.map((t: { attributes: { name: string } }) => t.attributes.name);
    assert.deepEqual(names, [...defaultNames, 'first', 'second']);
    assert.deepEqual(
      response.body.data.slice(3).map((t: { id: string }) => t.id),
      [first, second],
    );
    for (const template of response.body.data) {
      assert.equal(template.type, 'template');
      assert.deepEqual(template.relationships.organization.data, { type: 'organization', id: organizationId });
    }
    assert.equal(response.body.included, undefined);
  });

  it('create answers 201 and echoes every attribute byte for byte: padded base64 tcl, null stays null, "" stays ""', async () => {
    const organizationId = await createOrganization(context.server);
    const tcl = base64(`${flowText}# déploiement ✓ 🚀\n#\n`);
    assert.match(tcl, /==$/, 'the fixture tcl ends in two padding characters');
    const cases = [
      { name: 'Déploiement ✓ 🚀 e\u0301 "quoted" \\ back', description: null, version: '', tcl },
      { name: '  spaced  ', description: '', version: null, tcl: base64('flow: []') },
    ];
    for (const attributes of cases) {
      assert.match(attributes.tcl, /=$/);
      const response = await post(organizationId, templateDocument(attributes));
      assert.equal(response.status, 201, response.text);
      assert.equal(response.headers.get('content-type'), jsonApi);
      const data = response.body.data;
      assert.equal(data.type, 'template');
      assert.match(data.id, uuid);
      assert.equal(response.headers.get('location'), templatePath(organizationId, data.id));
      assert.deepEqual(
        { ...data.attributes, createdDate: undefined, updatedDate: undefined },
        {
          ...attributes,
          createdBy: 'admin@example.com',
          updatedBy: 'admin@example.com',
          createdDate: undefined,
          updatedDate: undefined,
        },
      );
      assert.match(data.attributes.createdDate, timestamp);
      assert.equal(data.attributes.updatedDate, data.attributes.createdDate);
      assert.deepEqual(data.relationships, { organization: { data: { type: 'organization', id: organizationId } } });
      // Byte for byte on the wire too, not only after parsing.
      assert.ok(response.text.includes(JSON.stringify(attributes.tcl)));

      const read = await context.server.get(templatePath(organizationId, data.id));
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, data);
      assert.equal(Buffer.from(read.body.data.attributes.tcl, 'base64').toString('base64'), attributes.tcl);
    }
    assert.equal((await listTemplates(organizationId)).length, defaultNames.length + cases.length);
  });

  it('omitted description and version read back as null', async () => {
    const organizationId = await createOrganization(context.server);
    const response = await post(organizationId, templateDocument({ name: 'minimal', tcl: validTcl }));
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.attributes.description, null);
    assert.equal(response.body.data.attributes.version, null);
    const read = await readTemplate(organizationId, response.body.data.id);
    assert.equal(read.attributes.description, null);
    assert.equal(read.attributes.version, null);
  });

  it('get answers 200 with the organization linkage, and include=organization adds the organization to included', async () => {
    const organizationId = await createOrganization(context.server, { name: `included-${randomUUID()}`, description: 'the owner' });
    const templateId = await createTemplate(context.server, organizationId, { name: 'with-owner' });

    const plain = await context.server.get(templatePath(organizationId, templateId));
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('content-type'), jsonApi);
    assert.ok(plain.headers.get('etag'));
    assert.equal(plain.body.data.id, templateId);
    assert.deepEqual(plain.body.data.relationships.organization, { data: { type: 'organization', id: organizationId } });
    assert.equal(plain.body.included, undefined);

    const response = await context.server.get(`${templatePath(organizationId, templateId)}?include=organization`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, plain.body.data);
    assert.equal(response.body.included.length, 1);
    const [owner] = response.body.included;
    assert.equal(owner.type, 'organization');
    assert.equal(owner.id, organizationId);
    assert.equal(owner.attributes.description, 'the owner');
    const organization = await context.server.get(`/api/v1/organization/${organizationId}`);
    assert.deepEqual(owner.attributes, organization.body.data.attributes);
  });

  it('PATCH changes only what it sends, ignores the audit attributes sent back, moves updatedDate, and answers 204 with no body', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, {
      name: 'patch-me',
      description: 'before',
      version: '1.0.0',
      tcl: validTcl,
    });
    const before = await readTemplate(organizationId, templateId);
    await pause(20);

    const editor = await context.server.token({ subject: 'editor@example.com', groups: [adminGroup] });
    const response = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument(
        {
          description: 'after',
          createdBy: 'mallory@example.com',
          createdDate: '2000-01-01T00:00:00.000Z',
          updatedBy: 'mallory@example.com',
          updatedDate: '2000-01-01T00:00:00.000Z',
        },
        { id: templateId },
      ),
      { token: editor },
    );
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');

    const after = await readTemplate(organizationId, templateId);
    assert.equal(after.attributes.description, 'after');
    assert.equal(after.attributes.name, 'patch-me');
    assert.equal(after.attributes.version, '1.0.0');
    assert.equal(after.attributes.tcl, validTcl);
    assert.equal(after.attributes.createdBy, before.attributes.createdBy);
    assert.equal(after.attributes.createdDate, before.attributes.createdDate);
    assert.equal(after.attributes.updatedBy, 'editor@example.com');
    assert.match(after.attributes.updatedDate, timestamp);
    assert.ok(
      after.attributes.updatedDate > before.attributes.updatedDate,
      `${after.attributes.updatedDate} is not after ${before.attributes.updatedDate}`,
    );
    assert.deepEqual(after.relationships, before.relationships);
  });

  it('PATCH sets optional strings to null or "" and they read back as sent', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { description: 'some', version: '2.0' });
    const response = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ description: null, version: '' }),
    );
    assert.equal(response.status, 204, response.text);
    const read = await readTemplate(organizationId, templateId);
    assert.equal(read.attributes.description, null);
    assert.equal(read.attributes.version, '');
    const back = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ description: '', version: null }));
    assert.equal(back.status, 204, back.text);
    const again = await readTemplate(organizationId, templateId);
    assert.equal(again.attributes.description, '');
    assert.equal(again.attributes.version, null);
  });

  it('a whole document read with GET, edited and PATCHed back (relationships.organization included) is accepted', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'round-trip' });
    const read = await context.server.get(templatePath(organizationId, templateId));
    const document = structuredClone(read.body);
    document.data.attributes.name = 'round-tripped';
    const response = await context.server.patch(templatePath(organizationId, templateId), document);
    assert.equal(response.status, 204, response.text);
    const after = await readTemplate(organizationId, templateId);
    assert.equal(after.attributes.name, 'round-tripped');
    assert.equal(after.attributes.tcl, read.body.data.attributes.tcl);
    assert.deepEqual(after.relationships, read.body.data.relationships);
  });

  it('DELETE answers 204 with no body; the template is gone and its organization and siblings stay', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'delete-me' });
    const response = await context.server.delete(templatePath(organizationId, templateId));
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');

    assertError(await context.server.get(templatePath(organizationId, templateId)), 404, {
      detail: `Unknown identifier ${templateId} for template`,
    });
    assertError(await context.server.delete(templatePath(organizationId, templateId)), 404, {
      detail: `Unknown identifier ${templateId} for template`,
    });
    await assertOnlyDefaults(organizationId);
    assert.equal((await context.server.get(`/api/v1/organization/${organizationId}`)).status, 200);
  });

  // --- What the real clients send ---

  it("the provider's create body (sorted keys, trailing newline, a zero-valued included organization) creates the template and leaves the organization untouched", async () => {
    const organizationName = `provider-${randomUUID()}`;
    const organizationId = await createOrganization(context.server, { name: organizationName, description: 'keep me', icon: 'cloud' });
    const organizationBefore = (await context.server.get(`/api/v1/organization/${organizationId}`)).body.data;
    const zeroOrganization = {
      type: 'organization',
      id: organizationId,
      attributes: { description: '', disabled: false, executionMode: '', icon: '', name: '' },
    };
    const body = {
      data: {
        type: 'template',
        attributes: { description: null, name: 'from-provider', tcl: validTcl, version: null },
        relationships: { organization: { data: { type: 'organization', id: organizationId } } },
      },
      included: [zeroOrganization],
    };
    const response = await postRaw(organizationId, `${JSON.stringify(body)}\n`);
    assert.equal(response.status, 201, response.text);
    const templateId = response.body.data.id as string;
    assert.deepEqual(response.body.data.attributes.name, 'from-provider');
    assert.equal(response.body.data.attributes.description, null);
    assert.equal(response.body.data.attributes.version, null);
    assert.equal(response.body.data.attributes.tcl, validTcl);

    const patch = await context.server.patch(templatePath(organizationId, templateId), {
      data: {
        type: 'template',
        id: templateId,
        attributes: { description: 'changed', name: 'from-provider', tcl: validTcl, version: '1' },
      },
      included: [zeroOrganization],
    });
    assert.equal(patch.status, 204, patch.text);
    assert.equal((await readTemplate(organizationId, templateId)).attributes.description, 'changed');

    const organizationAfter = (await context.server.get(`/api/v1/organization/${organizationId}`)).body.data;
    assert.deepEqual(organizationAfter, organizationBefore);
  });

  it('relationships.organization naming another organization is 422, on create and on update, and nothing moves', async () => {
    const organizationId = await createOrganization(context.server);
    const otherId = await createOrganization(context.server);
    const elsewhere = { organization: { data: { type: 'organization', id: otherId } } };

    const create = await post(organizationId, templateDocument({ name: 'misplaced', tcl: validTcl }, { relationships: elsewhere }));
    assertError(create, 422, { pointer: '/data/relationships/organization/data' });
    await assertOnlyDefaults(organizationId);
    await assertOnlyDefaults(otherId);

    const templateId = await createTemplate(context.server, organizationId, { name: 'stays' });
    const before = await readTemplate(organizationId, templateId);
    const update = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'moved' }, { id: templateId, relationships: elsewhere }),
    );
    assertError(update, 422, { pointer: '/data/relationships/organization/data' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    assertError(await context.server.get(templatePath(otherId, templateId)), 404);
    await assertOnlyDefaults(otherId);
  });

  it('an unmodeled relationship (webhook) sent as null is accepted, and is 422 when it links something', async () => {
    const organizationId = await createOrganization(context.server);
    const accepted = await post(
      organizationId,
      templateDocument({ name: 'with-null-webhook', tcl: validTcl }, { relationships: { webhook: { data: null } } }),
    );
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal(accepted.body.data.relationships.webhook, undefined);

    const rejected = await post(
      organizationId,
      templateDocument(
        { name: 'with-a-webhook', tcl: validTcl },
        { relationships: { webhook: { data: { type: 'webhook', id: randomUUID() } } } },
      ),
    );
    assertError(rejected, 422, { pointer: '/data/relationships/webhook' });
    await assertTemplateNames(organizationId, ['with-null-webhook']);

    const templateId = accepted.body.data.id as string;
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'renamed' }, { relationships: { webhook: { data: { type: 'webhook', id: randomUUID() } } } }),
    );
    assertError(patch, 422, { pointer: '/data/relationships/webhook' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    const nullPatch = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'renamed' }, { relationships: { webhook: { data: null } } }),
    );
    assert.equal(nullPatch.status, 204, nullPatch.text);
    assert.equal((await readTemplate(organizationId, templateId)).attributes.name, 'renamed');
  });

  it('an unknown relationship name is 400 with a pointer to it, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const relationships = { owner: { data: null } };
    const create = await post(organizationId, templateDocument({ name: 'unknown-link', tcl: validTcl }, { relationships }));
    assertError(create, 400, { pointer: '/data/relationships/owner' });
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'renamed' }, { relationships }),
    );
    assertError(patch, 400, { pointer: '/data/relationships/owner' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  // --- Paths ---

  it('a template id under another organization is 404 on GET, PATCH and DELETE, and the template is untouched', async () => {
    const organizationId = await createOrganization(context.server);
    const otherId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'owned' });
    const before = await readTemplate(organizationId, templateId);
    const wrongPath = templatePath(otherId, templateId);
    const detail = `Unknown identifier ${templateId} for template`;

    assertError(await context.server.get(wrongPath), 404, { detail });
    assertError(await context.server.patch(wrongPath, templateDocument({ name: 'hijacked' }, { id: templateId })), 404, { detail });
    assertError(await context.server.delete(wrongPath), 404, { detail });

    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    await assertOnlyDefaults(otherId);
  });

  it('an unknown organization id in the path is 404 naming the organization, for every operation', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'real' });
    const before = await readTemplate(organizationId, templateId);
    for (const unknown of [randomUUID(), 'not-a-uuid']) {
      const detail = `Unknown identifier ${unknown} for organization`;
      assertError(await context.server.get(templatesPath(unknown)), 404, { detail });
      assertError(await post(unknown, templateDocument({ name: 'orphan', tcl: validTcl })), 404, { detail });
      assertError(await context.server.get(templatePath(unknown, templateId)), 404, { detail });
      assertError(await context.server.patch(templatePath(unknown, templateId), templateDocument({ name: 'orphaned' })), 404, { detail });
      assertError(await context.server.delete(templatePath(unknown, templateId)), 404, { detail });
    }
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    await assertTemplateNames(organizationId, ['real']);
  });

  it('an unknown template id is 404 naming the template on GET, PATCH and DELETE', async () => {
    const organizationId = await createOrganization(context.server);
    for (const unknown of [randomUUID(), 'not-a-uuid']) {
      const detail = `Unknown identifier ${unknown} for template`;
      assertError(await context.server.get(templatePath(organizationId, unknown)), 404, { detail });
      assertError(await context.server.patch(templatePath(organizationId, unknown), templateDocument({ name: 'ghost' })), 404, { detail });
      assertError(await context.server.delete(templatePath(organizationId, unknown)), 404, { detail });
    }
    await assertOnlyDefaults(organizationId);
  });

  // --- Bad documents ---

  it('malformed JSON is 400 on create and update, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const truncated = '{"data": {"type": "template", "attributes": {"name": "half", "tcl": "';
    assertError(await postRaw(organizationId, truncated), 400, { code: 'malformed_json' });
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    assertError(await context.server.request('PATCH', templatePath(organizationId, templateId), { raw: truncated }), 400, {
      code: 'malformed_json',
    });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a body that is not an object, or no body at all, is 400 and nothing is created', async () => {
    const organizationId = await createOrganization(context.server);
    for (const raw of [
      '[]',
      `[${JSON.stringify(templateDocument({ name: 'in-array', tcl: validTcl }))}]`,
      '"template"',
      '42',
      'true',
      'null',
      '',
    ]) {
      assertError(await postRaw(organizationId, raw), 400);
    }
    await assertOnlyDefaults(organizationId);
  });

  it('data missing, null, not an object or an array is 400 and nothing is created', async () => {
    const organizationId = await createOrganization(context.server);
    const one = { type: 'template', attributes: { name: 'in-array', tcl: validTcl } };
    for (const body of [{}, { data: null }, { data: 'template' }, { data: [] }, { data: [one] }, { included: [one] }]) {
      assertError(await post(organizationId, body), 400, { pointer: '/data' });
    }
    await assertOnlyDefaults(organizationId);
  });

  it('a missing type is 400, on create and update, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    for (const type of [undefined, null, '']) {
      const response = await post(organizationId, { data: { type, attributes: { name: 'untyped', tcl: validTcl } } });
      assertError(response, 400, { pointer: '/data/type' });
    }
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(templatePath(organizationId, templateId), {
      data: { id: templateId, attributes: { name: 'untyped' } },
    });
    assertError(patch, 400, { pointer: '/data/type' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a wrong type is 409, on create and update, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const create = await post(organizationId, resourceDocument('organization', { name: 'wrong-type', tcl: validTcl }));
    assertError(create, 409, { pointer: '/data/type' });
    await assertOnlyDefaults(organizationId);
    const organizations = await context.server.get('/api/v1/organization?filter[organization]=name==wrong-type');
    assert.deepEqual(organizations.body.data, []);

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(
      templatePath(organizationId, templateId),
      resourceDocument('workspace', { name: 'wrong-type' }, { id: templateId }),
    );
    assertError(patch, 409, { pointer: '/data/type' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a non-empty data.id on create is 403, even the id of an existing template, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'existing' });
    const before = await readTemplate(organizationId, templateId);
    for (const id of [randomUUID(), templateId]) {
      const response = await post(organizationId, templateDocument({ name: 'client-id', tcl: validTcl }, { id }));
      assertError(response, 403);
    }
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    await assertTemplateNames(organizationId, ['existing']);
  });

  it("a data.id on PATCH that is not the path's is 409, and neither template changes", async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'target' });
    const otherId = await createTemplate(context.server, organizationId, { name: 'other' });
    const before = await readTemplate(organizationId, templateId);
    const otherBefore = await readTemplate(organizationId, otherId);
    for (const id of [otherId, randomUUID()]) {
      const response = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ name: 'confused' }, { id }));
      assertError(response, 409, { pointer: '/data/id' });
    }
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    assert.deepEqual(await readTemplate(organizationId, otherId), otherBefore);
  });

  it('an unknown attribute is 400 with a pointer to it, on create and update, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const create = await post(organizationId, templateDocument({ name: 'colourful', tcl: validTcl, color: 'red' }));
    assertError(create, 400, { code: 'unknown_attribute', pointer: '/data/attributes/color' });
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId, { name: 'plain' });
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'colourful', colour: 'red' }),
    );
    assertError(patch, 400, { code: 'unknown_attribute', pointer: '/data/attributes/colour' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('an attribute of the wrong JSON type is 422 with a pointer to it, on create and update, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const valid = { name: 'typed', description: 'd', version: '1', tcl: validTcl };
    const wrong: [string, unknown][] = [
      ['name', 42],
      ['name', ['typed']],
      ['description', true],
      ['version', 1.5],
      ['tcl', { content: validTcl }],
    ];
    for (const [name, value] of wrong) {
      const response = await post(organizationId, templateDocument({ ...valid, [name]: value }));
      const errors = assertError(response, 422, { pointer: `/data/attributes/${name}` });
      assert.equal(errors.length, 1);
    }
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId, valid);
    const before = await readTemplate(organizationId, templateId);
    for (const [name, value] of wrong) {
      const response = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ [name]: value }));
      assertError(response, 422, { pointer: `/data/attributes/${name}` });
    }
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a missing or null name or tcl is 422 with a pointer to it, and nothing is created or changed', async () => {
    const organizationId = await createOrganization(context.server);
    const cases: [Record<string, unknown>, string][] = [
      [{ tcl: validTcl }, 'name'],
      [{ name: 'no-tcl' }, 'tcl'],
      [{ name: null, tcl: validTcl }, 'name'],
      [{ name: 'null-tcl', tcl: null }, 'tcl'],
    ];
    for (const [attributes, missing] of cases) {
      const errors = assertError(await post(organizationId, templateDocument(attributes)), 422, {
        pointer: `/data/attributes/${missing}`,
      });
      assert.equal(errors.length, 1);
    }
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    for (const name of ['name', 'tcl']) {
      const response = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ [name]: null }));
      assertError(response, 422, { pointer: `/data/attributes/${name}` });
    }
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a name over 128 characters is 422; 128 characters, astral ones included, are accepted', async () => {
    const organizationId = await createOrganization(context.server);
    assertError(await post(organizationId, templateDocument({ name: 'n'.repeat(129), tcl: validTcl })), 422, {
      pointer: '/data/attributes/name',
    });
    await assertOnlyDefaults(organizationId);
    for (const name of ['n'.repeat(128), '🚀'.repeat(128)]) {
      const response = await post(organizationId, templateDocument({ name, tcl: validTcl }));
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.attributes.name, name);
    }

    const templateId = await createTemplate(context.server, organizationId);
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ name: '🚀'.repeat(129) }));
    assertError(patch, 422, { pointer: '/data/attributes/name' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a description over 512 characters is 422; 512 characters are accepted', async () => {
    const organizationId = await createOrganization(context.server);
    assertError(await post(organizationId, templateDocument({ name: 'long', description: 'd'.repeat(513), tcl: validTcl })), 422, {
      pointer: '/data/attributes/description',
    });
    await assertOnlyDefaults(organizationId);
    const response = await post(organizationId, templateDocument({ name: 'long', description: 'd'.repeat(512), tcl: validTcl }));
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.attributes.description, 'd'.repeat(512));

    const templateId = response.body.data.id as string;
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ description: 'é'.repeat(513) }));
    assertError(patch, 422, { pointer: '/data/attributes/description' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a tcl over 256 KiB is 422; 256 KiB is accepted and read back byte for byte', async () => {
    const organizationId = await createOrganization(context.server);
    const limit = 256 * 1024;
    assertError(await post(organizationId, templateDocument({ name: 'huge', tcl: 'A'.repeat(limit + 1) })), 422, {
      pointer: '/data/attributes/tcl',
    });
    await assertOnlyDefaults(organizationId);

    const largest = `${'QUJD'.repeat(limit / 4 - 1)}QQ==`;
    assert.equal(largest.length, limit);
    const response = await post(organizationId, templateDocument({ name: 'largest', tcl: largest }));
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.attributes.tcl, largest);
    const templateId = response.body.data.id as string;
    const before = await readTemplate(organizationId, templateId);
    assert.equal(before.attributes.tcl, largest);

    const patch = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ tcl: `${largest}AAAA` }));
    assertError(patch, 422, { pointer: '/data/attributes/tcl' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('a string containing U+0000 is 422 with a pointer to it, and nothing is stored', async () => {
    const organizationId = await createOrganization(context.server);
    const valid = { name: 'nul', description: 'd', version: '1', tcl: validTcl };
    for (const name of ['name', 'description', 'version', 'tcl']) {
      const response = await post(organizationId, templateDocument({ ...valid, [name]: 'before\u0000after' }));
      assertError(response, 422, { pointer: `/data/attributes/${name}` });
    }
    await assertOnlyDefaults(organizationId);

    const templateId = await createTemplate(context.server, organizationId, valid);
    const before = await readTemplate(organizationId, templateId);
    const patch = await context.server.patch(templatePath(organizationId, templateId), templateDocument({ description: '\u0000' }));
    assertError(patch, 422, { pointer: '/data/attributes/description' });
    assert.deepEqual(await readTemplate(organizationId, templateId), before);
  });

  it('checks run in order: an unknown attribute with a wrong type, or with a missing required one, is a single 400', async () => {
    const organizationId = await createOrganization(context.server);
    const bodies = [
      templateDocument({ name: 42, tcl: validTcl, color: 'red' }),
      templateDocument({ description: 'no name, no tcl', color: 'red' }),
    ];
    for (const body of bodies) {
      const errors = assertError(await post(organizationId, body), 400, { code: 'unknown_attribute', pointer: '/data/attributes/color' });
      assert.equal(errors.length, 1);
    }
    // A malformed document comes before an unknown attribute.
    const malformed = await post(organizationId, { data: { type: 'template', attributes: { color: 'red' }, relationships: [] } });
    assertError(malformed, 400, { pointer: '/data/relationships' });
    await assertOnlyDefaults(organizationId);
  });

  it('several invalid attributes are reported together in one 422, each with its pointer', async () => {
    const organizationId = await createOrganization(context.server);
    const response = await post(organizationId, templateDocument({ name: 42, description: 'd'.repeat(513), version: false }));
    const errors = assertError(response, 422);
    const pointers = errors.map((e) => e.source?.pointer).sort();
    assert.deepEqual(pointers, [
      '/data/attributes/description',
      '/data/attributes/name',
      '/data/attributes/tcl',
      '/data/attributes/version',
    ]);
    for (const error of errors) assert.equal(error.status, '422');
    await assertOnlyDefaults(organizationId);
  });

  // --- Flows Stratum would not run ---

  it('a flow its jobs could not run is 422 at tcl naming the line and the problem, through every door; other text is stored', async () => {
    const organizationId = await createOrganization(context.server);
    const flowLines = flowText.split('\n').length - 1;
    const refused: [string, RegExp][] = [
      [
        `${flowText}  - type: "approval"\n    step: 150\n    onReject:\n      - script: echo rejected\n`,
        new RegExp(`^Line ${flowLines + 3}: Step 150 \\(approval\\) lists onReject scripts, which Stratum does not run`),
      ],
      [
        'flow:\n  - type: customScripts\n    step: 1\n    commands:\n      - script: "true"\n    onFailure:\n      - script: echo failed\n',
        /^Line 6: Step 1 \(customScripts\) lists onFailure scripts, which run only when the Terraform work of a terraformPlan/,
      ],
      ['flow:\n  - type: terraformPlan\n    step: 100\n   name: Plan\n', /^Line 4: The template is not YAML: /],
      [
        'flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformTeleport\n    step: 200\n',
        /^Line 4: .*"terraformTeleport"; a step's type is one of/,
      ],
      [
        'flow:\n  - type: terraformPlan\n    step: 100\n  - type: terraformApply\n    step: 100\n',
        /^Line 4: Two steps of the flow are numbered 100/,
      ],
      ['flow:\n  - type: terraformPlan\n', /^Line 2: .*needs "step"/],
    ];
    const stored = await createTemplate(context.server, organizationId, { tcl: validTcl });
    const before = await readTemplate(organizationId, stored);
    for (const [yaml, reason] of refused) {
      const tcl = base64(yaml);
      const created = assertError(await post(organizationId, templateDocument({ name: 'refused', tcl })), 422, {
        code: 'invalid_value',
        pointer: '/data/attributes/tcl',
      });
      assert.match(created[0]?.detail ?? '', reason);
      const updated = assertError(
        await context.server.patch(templatePath(organizationId, stored), templateDocument({ tcl }, { id: stored })),
        422,
        {
          code: 'invalid_value',
          pointer: '/data/attributes/tcl',
        },
      );
      assert.match(updated[0]?.detail ?? '', reason);
      const [mutation] = await graphqlErrors(
        context.server,
        `mutation { organization(ids: [${literal(organizationId)}]) { edges { node { template(op: UPSERT, data: {name: "refused", tcl: ${literal(tcl)}}) { edges { node { id } } } } } } }`,
      );
      assert.deepEqual(mutation?.extensions, { code: 'invalid_value', status: 422, field: 'tcl' });
      assert.match(mutation.message, reason);
      const batch = await context.server.request('POST', '/api/v1/operations', {
        body: {
          'atomic:operations': [
            {
              op: 'add',
              href: `/organization/${organizationId}/template`,
              data: { type: 'template', attributes: { name: 'refused', tcl } },
            },
          ],
        },
        headers: { 'content-type': atomicType, accept: atomicType },
      });
      const inBatch = assertError(batch, 422, { code: 'invalid_value', pointer: '/atomic:operations/0/data/attributes/tcl' });
      assert.match(inBatch[0]?.detail ?? '', reason);
    }
    await assertTemplateNames(organizationId, [String(before.attributes.name)]);
    assert.deepEqual(await readTemplate(organizationId, stored), before);

    // What runs, and text that is no flow: the interface's tcl is any string, and its jobs fail at start with the reason.
    const accepted = [
      base64('flow:\n  - type: terraformApply\n    step: 1\n    onFailure:\n      - script: echo failed\n'),
      base64('flow:\n  - type: approval\n    step: 1\n    onReject: []\n'),
      base64('steps:\n  - type: terraformPlan\n'),
      base64('flow: []\n'),
      'not base64!',
      'terraform {}',
    ];
    for (const tcl of accepted) {
      const response = await post(organizationId, templateDocument({ name: 'accepted', tcl }));
      assert.equal(response.status, 201, response.text);
    }
  });

  // --- Names and authorization ---

  it("template names may repeat in an organization: a duplicate name is 201, and the provider's quoted filter finds both", async () => {
    const organizationId = await createOrganization(context.server);
    const first = await post(organizationId, templateDocument({ name: 'dup name', tcl: validTcl }));
    const second = await post(organizationId, templateDocument({ name: 'dup name', tcl: validTcl }));
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, second.text);
    assert.notEqual(first.body.data.id, second.body.data.id);
    const plan = await post(organizationId, templateDocument({ name: 'Plan', tcl: validTcl }));
    assert.equal(plan.status, 201, plan.text);

    const found = await context.server.get(`${templatesPath(organizationId)}?filter[template]=name=='dup%20name'`);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.data.map((t: { id: string }) => t.id).sort(), [first.body.data.id, second.body.data.id].sort());
  });

  it('a non-administrator outside the organization gets 404 for its templates and cannot create, change or delete one', async () => {
    const organizationId = await createOrganization(context.server);
    const templateId = await createTemplate(context.server, organizationId, { name: 'guarded' });
    const before = await readTemplate(organizationId, templateId);
    const token = await context.server.token({ groups: ['developers'] });
    const detail = `Unknown identifier ${organizationId} for organization`;

    assertError(await context.server.get(templatesPath(organizationId), { token }), 404, { detail });
    assertError(await context.server.get(templatePath(organizationId, templateId), { token }), 404, { detail });
    const create = await context.server.post(templatesPath(organizationId), templateDocument({ name: 'intruder', tcl: validTcl }), {
      token,
    });
    assertError(create, 404, { detail });
    const patch = await context.server.patch(
      templatePath(organizationId, templateId),
      templateDocument({ name: 'taken-over' }, { id: templateId }),
      { token },
    );
    assertError(patch, 404, { detail });
    assertError(await context.server.delete(templatePath(organizationId, templateId), { token }), 404, { detail });

    assert.deepEqual(await readTemplate(organizationId, templateId), before);
    await assertTemplateNames(organizationId, ['guarded']);
  });
});
